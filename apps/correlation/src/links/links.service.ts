import { Injectable } from '@nestjs/common';
import type { EventsStoredV1, SessionChangedV1 } from '@worktrack/contracts';
import { currentRequestId } from '@worktrack/platform';
import { LINKS_PER_MESSAGE, LinksPublisher } from './links.publisher';
import { LinksRepository, type NewEvent } from './links.repository';

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
    private readonly publisher: LinksPublisher,
  ) {}

  async onEventsStored(message: EventsStoredV1): Promise<void> {
    return this.onEventsStoredMany([message]);
  }

  /**
   * Several EventsStored messages (of one partition, in order) in one
   * transaction holding their members' locks (issue 17): one statement
   * inserts all their events and queues the links of every member. A
   * repeated event is a no-op: only new events are inserted (already linked),
   * and only their links published.
   */
  async onEventsStoredMany(messages: EventsStoredV1[]): Promise<void> {
    const events = new Map<string, NewEvent>();
    for (const m of messages) {
      for (const e of m.events) if (!events.has(e.eventId)) events.set(e.eventId, { memberId: m.memberId, ...e });
    }
    const members = [...new Set(messages.map((m) => m.memberId))];
    await this.links.forMembers(members, (manager) =>
      this.links.insertLinkedQueued(manager, [...events.values()], {
        linksPerMessage: LINKS_PER_MESSAGE,
        requestId: currentRequestId() ?? null,
      }),
    );
  }

  async onSessionChanged(change: SessionChangedV1): Promise<void> {
    await this.links.forMember(change.memberId, async (manager) => {
      const before = await this.links.session(manager, change.sessionId);
      if (before && before.revision >= change.revision) return; // stale or repeated
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
      await this.publisher.changed(manager, change.memberId, await this.links.relink(manager, change.memberId, { from, to }));
    });
  }
}
