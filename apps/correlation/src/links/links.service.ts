import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  MAX_COVER_SESSIONS_PER_MEMBER,
  type EventsStoredV1,
  type FindSessionCoverV1,
  type MemberSessionsV1,
  type SessionChangedV1,
  type SessionCoverV1,
  type UsageStoredV1,
} from '@worktrack/contracts';
import { currentRequestId } from '@worktrack/platform';
import { LINKS_PER_MESSAGE, LinksPublisher } from './links.publisher';
import { LinksRepository, type HeldLink, type NewEvent } from './links.repository';

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
   * Several EventsStored messages (of one partition, in order) together
   *: one call inserts all their events under their members' locks
   * and queues the links of every member. A repeated event is a no-op: only
   * new events are inserted (already linked), and only their links
   * published. A replayed message (ingestion's link audit, ADR 0016) also
   * publishes again the current link of its events that were held already,
   * in one transaction with the insert; the normal path only pays the `some`
   * below.
   */
  async onEventsStoredMany(messages: EventsStoredV1[]): Promise<void> {
    const events = new Map<string, NewEvent>();
    for (const m of messages) {
      for (const e of m.events) if (!events.has(e.eventId)) events.set(e.eventId, { memberId: m.memberId, ...e });
    }
    const outbox = { linksPerMessage: LINKS_PER_MESSAGE, requestId: currentRequestId() ?? null };
    if (!messages.some((m) => m.replay === true)) {
      await this.links.linkEvents([...events.values()], outbox);
      return;
    }
    const replayed = messages
      .filter((m) => m.replay === true)
      .flatMap((m) => m.events.map((e) => ({ memberId: m.memberId, eventId: e.eventId })));
    const members = [...new Set(messages.map((m) => m.memberId))];
    await this.links.forMembers(members, async (manager) => {
      // Before the insert: the held events are those of before this message.
      await this.republish(manager, await this.links.currentLinks(manager, replayed));
      await this.links.linkEvents([...events.values()], outbox, manager);
    });
  }

  /**
   * D-48: the usage records of several UsageStored messages (of one
   * partition, in order) linked in one call, as events are; a record that
   * named its own session keeps it and is not linked here, a repeated record
   * is a no-op.
   */
  async onUsageStoredMany(messages: UsageStoredV1[]): Promise<void> {
    const records = new Map<string, NewEvent>();
    for (const m of messages) {
      for (const u of m.usage) {
        if (u.sessionId === null || u.sessionId === undefined) {
          if (!records.has(u.usageId)) records.set(u.usageId, { memberId: m.memberId, eventId: u.usageId, occurredAt: u.occurredAt });
        }
      }
    }
    if (records.size === 0) return;
    await this.links.linkUsage([...records.values()], { linksPerMessage: LINKS_PER_MESSAGE, requestId: currentRequestId() ?? null });
  }

  /**
   * The sessions covering each member's range (ingestion's link audit): at
   * most MAX_COVER_SESSIONS_PER_MEMBER each, with `completeUntil` saying
   * where a cut list stops being complete.
   */
  async sessionCover(query: FindSessionCoverV1): Promise<SessionCoverV1> {
    const rows = await this.links.sessionsCovering(query.members, MAX_COVER_SESSIONS_PER_MEMBER + 1);
    const byMember = new Map<string, MemberSessionsV1>(
      query.members.map((m) => [m.memberId, { memberId: m.memberId, sessions: [], completeUntil: null }]),
    );
    for (const r of rows) {
      const entry = byMember.get(r.member_id);
      if (!entry || entry.completeUntil !== null) continue;
      if (entry.sessions.length === MAX_COVER_SESSIONS_PER_MEMBER) {
        entry.completeUntil = r.started_at.toISOString(); // the first one left out
        continue;
      }
      entry.sessions.push({ sessionId: r.session_id, startedAt: r.started_at.toISOString(), closedAt: r.closed_at?.toISOString() ?? null });
    }
    return { members: [...byMember.values()] };
  }

  private async republish(manager: EntityManager, held: HeldLink[]): Promise<void> {
    const byMember = new Map<string, HeldLink[]>();
    for (const link of held) {
      const list = byMember.get(link.member_id) ?? [];
      list.push(link);
      byMember.set(link.member_id, list);
    }
    for (const [memberId, links] of byMember) await this.publisher.changed(manager, memberId, links);
  }

  /** One round trip: the lock, the revision check, the interval, the relink and its messages. */
  async onSessionChanged(change: SessionChangedV1): Promise<void> {
    await this.links.applySessionChange(
      {
        sessionId: change.sessionId,
        memberId: change.memberId,
        startedAt: change.startedAt,
        closedAt: change.closedAt ?? null,
        revision: change.revision,
      },
      { linksPerMessage: LINKS_PER_MESSAGE, requestId: currentRequestId() ?? null },
    );
  }
}
