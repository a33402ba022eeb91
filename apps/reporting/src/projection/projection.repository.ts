import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type {
  MemberV1,
  PlateItemAssignedV1,
  PlateItemCompletedV1,
  SessionChangedV1,
  StoredEventRefV1,
  StoredUsageRefV1,
} from '@worktrack/contracts';
import { schemaOf } from '@worktrack/platform';
import { clearSql, recomputeSql, rollUpWeeksSql, type Grain } from './buckets-sql';
import { pausesOf, type StoredChange } from './pauses';

/** A member's time range whose buckets must be computed again. */
export interface Touched {
  memberId: string;
  workspaceId: string;
  lo: Date;
  hi: Date;
}

/** A consumed message: where it was read, and its payload. */
export interface Positioned<T> {
  topic: string;
  partition: number;
  offset: string;
  payload: T;
}

/**
 * The projection's writes (ADR 0018): facts from the topics, then the
 * buckets over the touched ranges, and the partition's consumed position,
 * all in one transaction — a message at or below the stored position is
 * skipped, so a redelivered batch changes nothing.
 */
@Injectable()
export class ProjectionRepository {
  private readonly schema: string;
  private readonly s: string;

  constructor(private readonly dataSource: DataSource) {
    this.schema = schemaOf(dataSource);
    this.s = `"${this.schema}"`;
  }

  /**
   * Runs `apply` on the messages of one partition not consumed yet, then
   * recomputes the buckets it touched and stores the new position.
   */
  async consume<T>(messages: Array<Positioned<T>>, apply: (m: EntityManager, fresh: T[]) => Promise<Touched[]>): Promise<void> {
    if (messages.length === 0) return;
    const { topic, partition } = messages[0];
    await this.dataSource.transaction(async (m) => {
      await m.query(`INSERT INTO ${this.s}.positions (topic, partition, next_offset) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING`, [
        topic,
        partition,
      ]);
      const [row] = await m.query<Array<{ next_offset: string }>>(
        `SELECT next_offset FROM ${this.s}.positions WHERE topic = $1 AND partition = $2 FOR UPDATE`,
        [topic, partition],
      );
      const next = BigInt(row?.next_offset ?? 0);
      const fresh = messages.filter((x) => BigInt(x.offset) >= next);
      if (fresh.length === 0) return;
      const touched = await apply(
        m,
        fresh.map((x) => x.payload),
      );
      await this.recompute(m, touched);
      const last = fresh.reduce((a, x) => (BigInt(x.offset) > a ? BigInt(x.offset) : a), 0n);
      await m.query(`UPDATE ${this.s}.positions SET next_offset = $3, updated_at = now() WHERE topic = $1 AND partition = $2`, [
        topic,
        partition,
        (last + 1n).toString(),
      ]);
    });
  }

  /** The members' buckets over the touched ranges (merged per member), hour and day grain. */
  async recompute(m: EntityManager, touched: Touched[]): Promise<void> {
    const merged = new Map<string, Touched>();
    for (const t of touched) {
      if (!(t.hi > t.lo)) t.hi = new Date(t.lo.getTime() + 1);
      const held = merged.get(t.memberId);
      if (!held) merged.set(t.memberId, { ...t });
      else {
        if (t.lo < held.lo) held.lo = t.lo;
        if (t.hi > held.hi) held.hi = t.hi;
      }
    }
    // One member's buckets are rewritten by one transaction at a time (the consumers of several topics touch them);
    // the locks are taken in one order, so two transactions never wait on each other in a circle.
    const members = [...merged.values()].sort((a, b) => a.memberId.localeCompare(b.memberId));
    for (const t of members) await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`reporting:${t.memberId}`]);
    for (const t of members) {
      const [member] = await m.query<Array<{ timezone: string }>>(`SELECT timezone FROM ${this.s}.members WHERE member_id = $1`, [
        t.memberId,
      ]);
      const zone = member?.timezone ?? 'UTC';
      for (const grain of ['hour', 'day'] as Grain[]) {
        const params: unknown[] = [t.memberId, t.workspaceId, t.lo, t.hi];
        if (grain === 'day') params.push(zone);
        await m.query(clearSql(this.schema, grain), params);
        await m.query(recomputeSql(this.schema, grain), params);
        if (grain === 'day') for (const sql of rollUpWeeksSql(this.schema)) await m.query(sql, params);
      }
    }
  }

  /** SessionChanged: the change kept, the session's newest state, its pauses; touches its old and new interval. */
  async sessions(m: EntityManager, changes: SessionChangedV1[]): Promise<Touched[]> {
    const touched: Touched[] = [];
    const now = new Date();
    for (const c of changes) {
      await m.query(
        `INSERT INTO ${this.s}.session_changes (session_id, revision, change, changed_at, closed_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING`,
        [c.sessionId, c.revision, c.change, c.changedAt, c.closedAt],
      );
      const [held] = await m.query<Array<{ revision: number; started_at: Date; closed_at: Date | null }>>(
        `SELECT revision, started_at, closed_at FROM ${this.s}.sessions WHERE session_id = $1 FOR UPDATE`,
        [c.sessionId],
      );
      if (!held || held.revision < c.revision) {
        await m.query(
          `INSERT INTO ${this.s}.sessions (session_id, workspace_id, member_id, revision, state, source, work_type, project_id, goal_id,
                                           intent_text, user_tags, started_at, closed_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
           ON CONFLICT (session_id) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state, started_at = EXCLUDED.started_at,
             closed_at = EXCLUDED.closed_at, work_type = EXCLUDED.work_type, project_id = EXCLUDED.project_id, goal_id = EXCLUDED.goal_id,
             intent_text = EXCLUDED.intent_text, user_tags = EXCLUDED.user_tags, created_at = EXCLUDED.created_at`,
          [
            c.sessionId,
            c.workspaceId,
            c.memberId,
            c.revision,
            c.state,
            c.source,
            c.workType ?? 'intentional',
            c.projectId ?? null,
            c.goalId ?? null,
            c.intentText ?? '',
            c.userTags ?? [],
            c.startedAt,
            c.closedAt,
            c.createdAt ?? c.startedAt,
          ],
        );
      }
      const [session] = await m.query<Array<{ closed_at: Date | null }>>(`SELECT closed_at FROM ${this.s}.sessions WHERE session_id = $1`, [
        c.sessionId,
      ]);
      const stored = await m.query<Array<{ revision: number; change: string; changed_at: Date; closed_at: Date | null }>>(
        `SELECT revision, change, changed_at, closed_at FROM ${this.s}.session_changes WHERE session_id = $1`,
        [c.sessionId],
      );
      const pauses = pausesOf(
        stored.map((r): StoredChange => ({ revision: r.revision, change: r.change, changedAt: r.changed_at, closedAt: r.closed_at })),
        session?.closed_at ?? null,
      );
      await m.query(`DELETE FROM ${this.s}.session_pauses WHERE session_id = $1`, [c.sessionId]);
      if (pauses.length > 0) {
        await m.query(
          `INSERT INTO ${this.s}.session_pauses (session_id, paused_at, resumed_at)
           SELECT $1, p, r FROM unnest($2::timestamptz[], $3::timestamptz[]) AS t(p, r) ON CONFLICT DO NOTHING`,
          [c.sessionId, pauses.map((p) => p.pausedAt), pauses.map((p) => p.resumedAt)],
        );
      }
      const starts = [new Date(c.startedAt), held?.started_at].filter((d): d is Date => d instanceof Date);
      const ends = [c.closedAt ? new Date(c.closedAt) : now, held ? (held.closed_at ?? now) : now];
      touched.push({
        memberId: c.memberId,
        workspaceId: c.workspaceId,
        lo: new Date(Math.min(...starts.map((d) => d.getTime()))),
        hi: new Date(Math.max(...ends.map((d) => d.getTime())) + 1),
      });
    }
    return touched;
  }

  /** EventsStored: one row per event (its instant and kind), kept when a link came first. */
  async events(m: EntityManager, memberId: string, workspaceId: string, events: StoredEventRefV1[]): Promise<Touched[]> {
    if (events.length === 0) return [];
    await m.query(
      `INSERT INTO ${this.s}.events (event_id, workspace_id, member_id, occurred_at, source_type, event_type)
       SELECT id, $2::uuid, $3::uuid, oc, st, et FROM unnest($1::uuid[], $4::timestamptz[], $5::text[], $6::text[]) AS t(id, oc, st, et)
       ON CONFLICT (event_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id, occurred_at = EXCLUDED.occurred_at,
         source_type = COALESCE(EXCLUDED.source_type, events.source_type), event_type = COALESCE(EXCLUDED.event_type, events.event_type)`,
      [
        events.map((e) => e.eventId),
        workspaceId,
        memberId,
        events.map((e) => e.occurredAt),
        events.map((e) => e.sourceType ?? null),
        events.map((e) => e.eventType ?? null),
      ],
    );
    return [
      this.span(
        memberId,
        workspaceId,
        events.map((e) => new Date(e.occurredAt)),
      ),
    ];
  }

  /** EventsLinked: a link applies when newer than the one held (a link before its event keeps a row without an instant). */
  async eventLinks(
    m: EntityManager,
    memberId: string,
    links: Array<{ eventId: string; sessionId: string | null; version: number }>,
  ): Promise<Touched[]> {
    const rows = await m.query<Array<{ occurred_at: Date | null; workspace_id: string | null }>>(
      `INSERT INTO ${this.s}.events (event_id, member_id, session_id, link_version)
       SELECT id, $2::uuid, sid, v FROM unnest($1::uuid[], $3::uuid[], $4::int[]) AS t(id, sid, v)
       ON CONFLICT (event_id) DO UPDATE SET session_id = EXCLUDED.session_id, link_version = EXCLUDED.link_version
        WHERE events.link_version < EXCLUDED.link_version
       RETURNING occurred_at, workspace_id`,
      [links.map((l) => l.eventId), memberId, links.map((l) => l.sessionId), links.map((l) => l.version)],
    );
    return this.spanOfRows(memberId, rows);
  }

  /** UsageStored: one row per record; a record naming its session keeps it (D-48). */
  async usage(m: EntityManager, memberId: string, workspaceId: string, usage: StoredUsageRefV1[]): Promise<Touched[]> {
    if (usage.length === 0) return [];
    await m.query(
      `INSERT INTO ${this.s}.usage (usage_id, workspace_id, member_id, occurred_at, cost, input_tokens, output_tokens, session_id, own_session)
       SELECT id, $2::uuid, $3::uuid, oc, cost, it, ot, sid, sid IS NOT NULL
         FROM unnest($1::uuid[], $4::timestamptz[], $5::numeric[], $6::bigint[], $7::bigint[], $8::uuid[]) AS t(id, oc, cost, it, ot, sid)
       ON CONFLICT (usage_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id, occurred_at = EXCLUDED.occurred_at, cost = EXCLUDED.cost,
         input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens, own_session = EXCLUDED.own_session,
         session_id = CASE WHEN EXCLUDED.own_session THEN EXCLUDED.session_id ELSE usage.session_id END`,
      [
        usage.map((u) => u.usageId),
        workspaceId,
        memberId,
        usage.map((u) => u.occurredAt),
        usage.map((u) => u.cost),
        usage.map((u) => u.inputTokens ?? 0),
        usage.map((u) => u.outputTokens ?? 0),
        usage.map((u) => u.sessionId),
      ],
    );
    return [
      this.span(
        memberId,
        workspaceId,
        usage.map((u) => new Date(u.occurredAt)),
      ),
    ];
  }

  /** UsageLinked: like an event's link, never over a record's own session. */
  async usageLinks(
    m: EntityManager,
    memberId: string,
    links: Array<{ usageId: string; sessionId: string | null; version: number }>,
  ): Promise<Touched[]> {
    const rows = await m.query<Array<{ occurred_at: Date | null; workspace_id: string | null }>>(
      `INSERT INTO ${this.s}.usage (usage_id, member_id, session_id, link_version)
       SELECT id, $2::uuid, sid, v FROM unnest($1::uuid[], $3::uuid[], $4::int[]) AS t(id, sid, v)
       ON CONFLICT (usage_id) DO UPDATE SET session_id = EXCLUDED.session_id, link_version = EXCLUDED.link_version
        WHERE usage.link_version < EXCLUDED.link_version AND NOT usage.own_session
       RETURNING occurred_at, workspace_id`,
      [links.map((l) => l.usageId), memberId, links.map((l) => l.sessionId), links.map((l) => l.version)],
    );
    return this.spanOfRows(memberId, rows);
  }

  /** MemberState: the newest version; a new zone recomputes every day bucket of the member. */
  async member(m: EntityManager, member: MemberV1): Promise<Touched[]> {
    const version = member.version ?? 0;
    const [held] = await m.query<Array<{ timezone: string; version: number }>>(
      `SELECT timezone, version FROM ${this.s}.members WHERE member_id = $1 FOR UPDATE`,
      [member.memberId],
    );
    if (held && held.version > version) return [];
    await m.query(
      `INSERT INTO ${this.s}.members (member_id, workspace_id, kind, timezone, plate_capacity, version) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (member_id) DO UPDATE SET kind = EXCLUDED.kind, timezone = EXCLUDED.timezone, plate_capacity = EXCLUDED.plate_capacity,
         version = EXCLUDED.version`,
      [member.memberId, member.workspaceId, member.kind, member.timezone, member.plateCapacity, version],
    );
    if (held && held.timezone === member.timezone) return [];
    await m.query(`DELETE FROM ${this.s}.day_buckets WHERE member_id = $1`, [member.memberId]);
    await m.query(`DELETE FROM ${this.s}.week_buckets WHERE member_id = $1`, [member.memberId]);
    const [range] = await m.query<Array<{ lo: Date | null; hi: Date | null }>>(
      `SELECT min(lo) AS lo, max(hi) AS hi FROM (
         SELECT min(started_at) AS lo, max(COALESCE(closed_at, now())) AS hi FROM ${this.s}.sessions WHERE member_id = $1
         UNION ALL SELECT min(occurred_at), max(occurred_at) FROM ${this.s}.events WHERE member_id = $1
         UNION ALL SELECT min(occurred_at), max(occurred_at) FROM ${this.s}.usage WHERE member_id = $1) r`,
      [member.memberId],
    );
    if (!range?.lo || !range.hi) return [];
    return [{ memberId: member.memberId, workspaceId: member.workspaceId, lo: range.lo, hi: new Date(range.hi.getTime() + 1) }];
  }

  /**
   * PlateItemAssigned: one row per item (D-51's plate report reads them). It
   * sets only what the assignment knows, so it commutes with the item's
   * completion and a redelivery changes nothing.
   */
  async plate(m: EntityManager, item: PlateItemAssignedV1): Promise<void> {
    await m.query(
      `INSERT INTO ${this.s}.plate_items (plate_item_id, workspace_id, assignee_id, plate_date, overflowed, requested_date)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (plate_item_id) DO UPDATE SET overflowed = EXCLUDED.overflowed,
         requested_date = COALESCE(EXCLUDED.requested_date, plate_items.requested_date)`,
      [item.plateItemId, item.workspaceId, item.assigneeId, item.plateDate, item.overflowed, item.requestedDate ?? null],
    );
  }

  /**
   * PlateItemCompleted (D-32): the item's `done_at`, the first one kept. Applied
   * before the assignment it creates the row from the completion's own day.
   */
  async plateCompleted(m: EntityManager, item: PlateItemCompletedV1): Promise<void> {
    await m.query(
      `INSERT INTO ${this.s}.plate_items (plate_item_id, workspace_id, assignee_id, plate_date, done_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (plate_item_id) DO UPDATE SET done_at = LEAST(plate_items.done_at, EXCLUDED.done_at)`,
      [item.plateItemId, item.workspaceId, item.assigneeId, item.plateDate, item.doneAt],
    );
  }

  private span(memberId: string, workspaceId: string, instants: Date[]): Touched {
    const times = instants.map((d) => d.getTime());
    return { memberId, workspaceId, lo: new Date(Math.min(...times)), hi: new Date(Math.max(...times) + 1) };
  }

  private spanOfRows(memberId: string, rows: Array<{ occurred_at: Date | null; workspace_id: string | null }>): Touched[] {
    const known = rows.filter((r) => r.occurred_at && r.workspace_id);
    if (known.length === 0) return [];
    return [
      this.span(
        memberId,
        known[0].workspace_id!,
        known.map((r) => r.occurred_at!),
      ),
    ];
  }
}
