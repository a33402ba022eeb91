import type { StoredEventV1 } from '@worktrack/contracts';
import type { ActivityEventEntity } from './entities/activity-event.entity';

/** A stored event as the contract shows it. */
export const toStoredEventV1 = (e: ActivityEventEntity): StoredEventV1 => ({
  eventId: e.id,
  sourceType: e.sourceType,
  eventType: e.eventType,
  occurredAt: e.occurredAt.toISOString(),
  receivedAt: e.receivedAt.toISOString(),
  payload: e.payload,
  externalId: e.externalId,
  sessionId: e.sessionId,
});
