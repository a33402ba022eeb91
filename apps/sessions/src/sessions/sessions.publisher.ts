import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SessionChanged, type SessionChange } from '@worktrack/contracts';
import { currentRequestId, enqueue } from '@worktrack/platform';
import type { SessionEntity } from './entities/session.entity';

/** The outbox row's headers of a change whose statement writes the payload itself (`SessionsRepository`). */
export interface QueuedMessage {
  topic: string;
  type: string;
  version: number;
  messageId: string;
  requestId: string | null;
}

/**
 * Session changes on `sessions.events`, written to the outbox in the
 * transaction of the change (no loss between commit and publish), keyed by
 * member id (one member's changes in order). The commit's NOTIFY wakes the
 * relay, which gathers the commits of 50 ms into one batch.
 */
@Injectable()
export class SessionsPublisher {
  /**
   * A SessionChanged message for a statement that makes the change and
   * queues its message from the changed row (the payload `changed` builds,
   * written in SQL: one round trip per transition, ADR 0012 decision 13).
   */
  queued(): QueuedMessage {
    return {
      topic: SessionChanged.topic,
      type: SessionChanged.type,
      version: SessionChanged.version,
      messageId: randomUUID(),
      requestId: currentRequestId() ?? null,
    };
  }

  changed(manager: EntityManager, change: SessionChange, s: SessionEntity): Promise<void> {
    return enqueue(
      manager,
      SessionChanged,
      {
        change,
        sessionId: s.id,
        memberId: s.memberId,
        workspaceId: s.workspaceId,
        source: s.source,
        state: s.state,
        startedAt: s.startedAt.toISOString(),
        closedAt: s.closedAt ? s.closedAt.toISOString() : null,
        closedReason: s.closedReason,
        revision: s.revision,
        changedAt: s.updatedAt.toISOString(),
      },
      { key: s.memberId },
    );
  }
}
