import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SessionChanged, type SessionChange } from '@worktrack/contracts';
import { enqueue, OutboxRelay } from '@worktrack/platform';
import type { SessionEntity } from './entities/session.entity';

/** How long commits are gathered before the relay is woken. */
const NOTIFY_COALESCE_MS = 50;

/**
 * Session changes on `sessions.events`, written to the outbox in the
 * transaction of the change (no loss between commit and publish), keyed by
 * member id (one member's changes in order).
 */
@Injectable()
export class SessionsPublisher {
  private wake?: NodeJS.Timeout;

  constructor(@Inject(OutboxRelay) private readonly relay: Pick<OutboxRelay, 'notify'>) {}

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

  /**
   * After a commit that enqueued changes: wakes the relay within
   * NOTIFY_COALESCE_MS rather than at its next poll, once for all the commits
   * of that window, so under load it publishes batches instead of one row
   * per round (each round is a read, a produce and a delete).
   */
  published(): void {
    if (this.wake) return;
    this.wake = setTimeout(() => {
      this.wake = undefined;
      this.relay.notify();
    }, NOTIFY_COALESCE_MS);
    this.wake.unref();
  }
}
