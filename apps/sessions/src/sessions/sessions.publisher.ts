import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SessionChanged, type SessionChange } from '@worktrack/contracts';
import { enqueue } from '@worktrack/platform';
import type { SessionEntity } from './entities/session.entity';

/**
 * Session changes on `sessions.events`, written to the outbox in the
 * transaction of the change (no loss between commit and publish), keyed by
 * member id (one member's changes in order). The commit's NOTIFY wakes the
 * relay, which gathers the commits of 50 ms into one batch.
 */
@Injectable()
export class SessionsPublisher {
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
