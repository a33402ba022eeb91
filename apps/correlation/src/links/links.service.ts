import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventsLinked, type EventsStoredV1, type SessionChangedV1 } from '@worktrack/contracts';
import { enqueue, OutboxRelay } from '@worktrack/platform';
import { LinksRepository, type ChangedLink } from './links.repository';

/**
 * D-31: links every stored event to the member's session running when it
 * happened, and keeps the links right whatever order events and session
 * changes arrive in: a session change recomputes the links of the events its
 * old and new intervals cover; a stale or repeated change (by revision) and a
 * repeated event are no-ops.
 */
@Injectable()
export class LinksService {
  constructor(
    private readonly links: LinksRepository,
    @Inject(OutboxRelay) private readonly relay: Pick<OutboxRelay, 'notify'>,
  ) {}

  async onEventsStored(message: EventsStoredV1): Promise<void> {
    const published = await this.links.forMember(message.memberId, async (manager) => {
      const fresh = await this.links.insertEvents(manager, message.memberId, message.events);
      if (fresh.length === 0) return false;
      return this.publish(manager, message.memberId, await this.links.relink(manager, message.memberId, { eventIds: fresh }));
    });
    if (published) this.relay.notify();
  }

  async onSessionChanged(change: SessionChangedV1): Promise<void> {
    const published = await this.links.forMember(change.memberId, async (manager) => {
      const before = await this.links.session(manager, change.sessionId);
      if (before && before.revision >= change.revision) return false; // stale or repeated
      await this.links.saveSession(manager, {
        sessionId: change.sessionId,
        memberId: change.memberId,
        startedAt: change.startedAt,
        closedAt: change.closedAt ?? null,
        revision: change.revision,
      });
      // The events whose link may change: those the old or the new interval covers.
      const starts = [Date.parse(change.startedAt), ...(before ? [before.started_at.getTime()] : [])];
      const ends = [change.closedAt ? Date.parse(change.closedAt) : null, ...(before ? [before.closed_at?.getTime() ?? null] : [])];
      const from = new Date(Math.min(...starts));
      const to = ends.some((e) => e === null) ? null : new Date(Math.max(...(ends as number[])));
      return this.publish(manager, change.memberId, await this.links.relink(manager, change.memberId, { from, to }));
    });
    if (published) this.relay.notify();
  }

  private async publish(manager: EntityManager, memberId: string, changed: ChangedLink[]): Promise<boolean> {
    if (changed.length === 0) return false;
    await enqueue(
      manager,
      EventsLinked,
      { memberId, links: changed.map((c) => ({ eventId: c.event_id, sessionId: c.session_id, version: c.link_version })) },
      { key: memberId },
    );
    return true;
  }
}
