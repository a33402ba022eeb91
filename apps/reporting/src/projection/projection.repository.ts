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
import { clearSql, factDeltaSql, raiseRevisionsSql, recomputeSql, rollUpWeeksSql, type Grain } from './buckets-sql';
import { pausesOf, type StoredChange } from './pauses';

/** A member's time range whose buckets must be computed again. */
export interface Touched {
  memberId: string;
  workspaceId: string;
  lo: Date;
  hi: Date;
}

/** One stored batch of a member's events or usage records, as EventsStored and UsageStored carry them. */
export interface MemberBatch<T> {
  memberId: string;
  workspaceId: string;
  items: T[];
}

/** One batch of a member's links, as EventsLinked and UsageLinked carry them. */
export interface MemberLinks<T> {
  memberId: string;
  links: T[];
}

/** The partition a consumed call reads. */
export interface Consumed {
  topic: string;
  partition: number;
}

/** A consumed message: where it was read, and its payload. */
export interface Positioned<T> extends Consumed {
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

  /** The hot topics' statements (`factDeltaSql`), built once. */
  private readonly hot: Record<HotStatement, string>;

  /** The revisions of the workspaces a call's messages name (`revise`), built once. */
  private readonly raiseRevisions: string;

  constructor(private readonly dataSource: DataSource) {
    this.schema = schemaOf(dataSource);
    this.s = `"${this.schema}"`;
    this.hot = hotStatements(this.schema);
    this.raiseRevisions = raiseRevisionsSql(this.schema, 'SELECT unnest($3::uuid[]) AS workspace_id', 1);
  }

  /**
   * Runs `apply` on the messages of one partition not consumed yet, then
   * recomputes the buckets it touched and stores the new position.
   *
   * Locks, always in this order, so two transactions never wait on each other
   * in a circle: the partition's position row, then the advisory lock of every
   * member whose facts or buckets the messages write (`memberOf`), taken
   * together in the order of their keys before any fact is written. A member's
   * facts and buckets are then written by one transaction at a time, whichever
   * topic it consumes.
   *
   * `revised` names the workspaces the fresh messages change what a summary reads of; their revisions rise in the
   * same transaction, so a cached summary (ADR 0018) is never served over data it does not hold. The hot topics'
   * statements raise theirs themselves (`factDeltaSql`), from the partition `apply` is given.
   */
  async consume<T>(
    messages: Array<Positioned<T>>,
    apply: (m: EntityManager, fresh: T[], consumed: Consumed) => Promise<Touched[]>,
    memberOf?: (payload: T) => string,
    revised?: (fresh: T[]) => string[],
  ): Promise<void> {
    if (messages.length === 0) return;
    const { topic, partition } = messages[0];
    await this.dataSource.transaction(async (m) => {
      const position = `SELECT next_offset FROM ${this.s}.positions WHERE topic = $1 AND partition = $2 FOR UPDATE`;
      let [row] = await m.query<Array<{ next_offset: string }>>(position, [topic, partition]);
      if (!row) {
        await m.query(`INSERT INTO ${this.s}.positions (topic, partition, next_offset) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING`, [
          topic,
          partition,
        ]);
        [row] = await m.query<Array<{ next_offset: string }>>(position, [topic, partition]);
      }
      const next = BigInt(row?.next_offset ?? 0);
      const fresh = messages.filter((x) => BigInt(x.offset) >= next);
      if (fresh.length === 0) return;
      const payloads = fresh.map((x) => x.payload);
      const locked = new Set<string>();
      if (memberOf) await this.lockMembers(m, payloads.map(memberOf), locked);
      const touched = await apply(m, payloads, { topic, partition });
      await this.recompute(m, touched, locked);
      if (revised) await this.revise(m, topic, partition, revised(payloads));
      const last = fresh.reduce((a, x) => (BigInt(x.offset) > a ? BigInt(x.offset) : a), 0n);
      await m.query(`UPDATE ${this.s}.positions SET next_offset = $3, updated_at = now() WHERE topic = $1 AND partition = $2`, [
        topic,
        partition,
        (last + 1n).toString(),
      ]);
    });
  }

  /** Raises the revision of every workspace in `workspaces` for the consumed partition (`raiseRevisionsSql`). */
  private async revise(m: EntityManager, topic: string, partition: number, workspaces: string[]): Promise<void> {
    if (workspaces.length > 0) await m.query(this.raiseRevisions, [topic, partition, workspaces]);
  }

  /**
   * Takes the advisory locks of the members not in `locked` in one statement, in the order of their keys
   * (the keys, not the ids: two ids whose keys collide are one lock, taken once), and adds them to `locked`.
   */
  private async lockMembers(m: EntityManager, memberIds: string[], locked: Set<string>): Promise<void> {
    const wanted = [...new Set(memberIds)].filter((id) => !locked.has(id));
    if (wanted.length === 0) return;
    await m.query(
      `SELECT count(pg_advisory_xact_lock(k)) FROM (
         SELECT DISTINCT hashtextextended('reporting:' || id, 0) AS k FROM unnest($1::text[]) AS id ORDER BY k) AS keys`,
      [wanted],
    );
    for (const id of wanted) locked.add(id);
  }

  /**
   * The members' buckets over the touched ranges (merged per member), hour and day grain. Members not in
   * `locked` are locked first (all of them in one statement, in key order).
   */
  async recompute(m: EntityManager, touched: Touched[], locked = new Set<string>()): Promise<void> {
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
    if (merged.size === 0) return;
    // The recompute statements' estimates (a generated series of 1,000 buckets joined to the member's facts) pass
    // jit_above_cost, and compiling them takes a hundred times longer than running them (hundreds of ms against a few).
    await m.query('SET LOCAL jit = off');
    // One member's buckets are rewritten by one transaction at a time (the consumers of several topics touch them).
    const members = [...merged.values()];
    await this.lockMembers(
      m,
      members.map((t) => t.memberId),
      locked,
    );
    const zones = new Map(
      (
        await m.query<Array<{ member_id: string; timezone: string }>>(
          `SELECT member_id, timezone FROM ${this.s}.members WHERE member_id = ANY($1::uuid[])`,
          [members.map((t) => t.memberId)],
        )
      ).map((r) => [r.member_id, r.timezone]),
    );
    for (const t of members) {
      const zone = zones.get(t.memberId) ?? 'UTC';
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
      const [held] = await m.query<
        Array<{
          revision: number;
          started_at: Date;
          closed_at: Date | null;
          work_type: string;
          project_id: string | null;
          goal_id: string | null;
        }>
      >(`SELECT revision, started_at, closed_at, work_type, project_id, goal_id FROM ${this.s}.sessions WHERE session_id = $1 FOR UPDATE`, [
        c.sessionId,
      ]);
      const newer = !held || held.revision < c.revision;
      const keysChanged =
        !held ||
        (newer &&
          (held.work_type !== (c.workType ?? 'intentional') ||
            held.project_id !== (c.projectId ?? null) ||
            held.goal_id !== (c.goalId ?? null)));
      if (newer) {
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
      // The events and usage linked to the session count under its keys ('' before the session is known), wherever
      // their instants lie: a new session or new keys recompute their buckets too, so that the hot topics' deltas
      // (`factDeltaSql`) always start from buckets equal to the facts.
      if (keysChanged) {
        const [linked] = await m.query<Array<{ lo: Date | null; hi: Date | null }>>(
          `SELECT min(lo) AS lo, max(hi) AS hi FROM (
             SELECT min(occurred_at) AS lo, max(occurred_at) AS hi FROM ${this.s}.events WHERE session_id = $1
             UNION ALL SELECT min(occurred_at), max(occurred_at) FROM ${this.s}.usage WHERE session_id = $1) r`,
          [c.sessionId],
        );
        if (linked?.lo && linked.hi)
          touched.push({ memberId: c.memberId, workspaceId: c.workspaceId, lo: linked.lo, hi: new Date(linked.hi.getTime() + 1) });
      }
    }
    return touched;
  }

  /**
   * EventsStored: one row per event (its instant and kind), kept when a link came first, and its count in the
   * buckets (`factDeltaSql`); the batches of one consumed call in one statement. An event held twice in the call
   * is written once, as the later message leaves it.
   */
  async events(m: EntityManager, batches: Array<MemberBatch<StoredEventRefV1>>, consumed: Consumed): Promise<Touched[]> {
    const byId = new Map<string, { b: MemberBatch<StoredEventRefV1>; e: StoredEventRefV1 }>();
    for (const b of batches)
      for (const e of b.items) {
        const held = byId.get(e.eventId)?.e;
        byId.set(e.eventId, {
          b,
          e: held ? { ...e, sourceType: e.sourceType ?? held.sourceType, eventType: e.eventType ?? held.eventType } : e,
        });
      }
    const rows = [...byId.values()];
    if (rows.length === 0) return [];
    await this.applyDelta(m, 'eventsStored', consumed, [
      rows.map((r) => r.e.eventId),
      rows.map((r) => r.b.workspaceId),
      rows.map((r) => r.b.memberId),
      rows.map((r) => r.e.occurredAt),
      rows.map((r) => r.e.sourceType ?? null),
      rows.map((r) => r.e.eventType ?? null),
    ]);
    return [];
  }

  /**
   * EventsLinked: a link applies when newer than the one held (a link before its event keeps a row without an
   * instant), and moves the event's count in the buckets (`factDeltaSql`); the batches of one consumed call in
   * one statement.
   */
  async eventLinks(
    m: EntityManager,
    batches: Array<MemberLinks<{ eventId: string; sessionId: string | null; version: number }>>,
    consumed: Consumed,
  ): Promise<Touched[]> {
    return this.applyLinks(
      m,
      'eventsLinked',
      consumed,
      newestLinks(batches, (l) => l.eventId),
      (l) => l.eventId,
    );
  }

  /**
   * UsageStored: one row per record, a record naming its session keeps it (D-48), and its cost and tokens in the
   * buckets (`factDeltaSql`); the batches of one consumed call in one statement. A record held twice in the call
   * is written once, as the later message leaves it.
   */
  async usage(m: EntityManager, batches: Array<MemberBatch<StoredUsageRefV1>>, consumed: Consumed): Promise<Touched[]> {
    const byId = new Map<string, { b: MemberBatch<StoredUsageRefV1>; u: StoredUsageRefV1 }>();
    for (const b of batches) for (const u of b.items) byId.set(u.usageId, { b, u });
    const rows = [...byId.values()];
    if (rows.length === 0) return [];
    await this.applyDelta(m, 'usageStored', consumed, [
      rows.map((r) => r.u.usageId),
      rows.map((r) => r.b.workspaceId),
      rows.map((r) => r.b.memberId),
      rows.map((r) => r.u.occurredAt),
      rows.map((r) => r.u.cost),
      rows.map((r) => r.u.inputTokens ?? 0),
      rows.map((r) => r.u.outputTokens ?? 0),
      rows.map((r) => r.u.sessionId),
    ]);
    return [];
  }

  /**
   * UsageLinked: like an event's link, never over a record's own session, and moves the record's cost and tokens
   * in the buckets (`factDeltaSql`); the batches of one consumed call in one statement.
   */
  async usageLinks(
    m: EntityManager,
    batches: Array<MemberLinks<{ usageId: string; sessionId: string | null; version: number }>>,
    consumed: Consumed,
  ): Promise<Touched[]> {
    return this.applyLinks(
      m,
      'usageLinked',
      consumed,
      newestLinks(batches, (l) => l.usageId),
      (l) => l.usageId,
    );
  }

  /** Runs a hot topic's statement: the facts, the buckets' differences and the revisions in one. */
  private async applyDelta(m: EntityManager, name: HotStatement, consumed: Consumed, params: unknown[]): Promise<void> {
    await m.query(this.hot[name], [...params, consumed.topic, consumed.partition]);
  }

  /** Runs a links statement (its parameters: fact ids, member ids, session ids, versions). */
  private async applyLinks<L extends { memberId: string; sessionId: string | null; version: number }>(
    m: EntityManager,
    name: 'eventsLinked' | 'usageLinked',
    consumed: Consumed,
    links: L[],
    idOf: (link: L) => string,
  ): Promise<Touched[]> {
    if (links.length === 0) return [];
    await this.applyDelta(m, name, consumed, [
      links.map(idOf),
      links.map((l) => l.memberId),
      links.map((l) => l.sessionId),
      links.map((l) => l.version),
    ]);
    return [];
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
}

/**
 * The links of one call, one per fact: the highest version, the first of equal ones — what applying them one by
 * one leaves (a link applies only over an older one). Two links of one fact in one statement would make its
 * upsert touch the row twice.
 */
function newestLinks<L extends { sessionId: string | null; version: number }>(
  batches: Array<MemberLinks<L>>,
  idOf: (l: L) => string,
): Array<L & { memberId: string }> {
  const byId = new Map<string, L & { memberId: string }>();
  for (const b of batches)
    for (const l of b.links) {
      const held = byId.get(idOf(l));
      if (!held || held.version < l.version) byId.set(idOf(l), { ...l, memberId: b.memberId });
    }
  return [...byId.values()];
}

/** The statements of the hot topics, by name; each takes the consumed topic and partition after its input's parameters. */
type HotStatement = 'eventsStored' | 'eventsLinked' | 'usageStored' | 'usageLinked';

function hotStatements(schema: string): Record<HotStatement, string> {
  const s = `"${schema}"`;
  return {
    eventsStored: factDeltaSql(
      schema,
      'events',
      'SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5::text[], $6::text[]) AS t(id, ws, mem, oc, st, et)',
      `INSERT INTO ${s}.events (event_id, workspace_id, member_id, occurred_at, source_type, event_type)
       SELECT id, ws, mem, oc, st, et FROM input
       ON CONFLICT (event_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id, occurred_at = EXCLUDED.occurred_at,
         source_type = COALESCE(EXCLUDED.source_type, events.source_type), event_type = COALESCE(EXCLUDED.event_type, events.event_type)`,
      7,
    ),
    eventsLinked: factDeltaSql(
      schema,
      'events',
      'SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[]) AS t(id, mem, sid, v)',
      `INSERT INTO ${s}.events (event_id, member_id, session_id, link_version)
       SELECT id, mem, sid, v FROM input
       ON CONFLICT (event_id) DO UPDATE SET session_id = EXCLUDED.session_id, link_version = EXCLUDED.link_version
        WHERE events.link_version < EXCLUDED.link_version`,
      5,
    ),
    usageStored: factDeltaSql(
      schema,
      'usage',
      `SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5::numeric[], $6::bigint[], $7::bigint[], $8::uuid[])
         AS t(id, ws, mem, oc, cost, it, ot, sid)`,
      `INSERT INTO ${s}.usage (usage_id, workspace_id, member_id, occurred_at, cost, input_tokens, output_tokens, session_id, own_session)
       SELECT id, ws, mem, oc, cost, it, ot, sid, sid IS NOT NULL FROM input
       ON CONFLICT (usage_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id, occurred_at = EXCLUDED.occurred_at, cost = EXCLUDED.cost,
         input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens, own_session = EXCLUDED.own_session,
         session_id = CASE WHEN EXCLUDED.own_session THEN EXCLUDED.session_id ELSE usage.session_id END`,
      9,
    ),
    usageLinked: factDeltaSql(
      schema,
      'usage',
      'SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[]) AS t(id, mem, sid, v)',
      `INSERT INTO ${s}.usage (usage_id, member_id, session_id, link_version)
       SELECT id, mem, sid, v FROM input
       ON CONFLICT (usage_id) DO UPDATE SET session_id = EXCLUDED.session_id, link_version = EXCLUDED.link_version
        WHERE usage.link_version < EXCLUDED.link_version AND NOT usage.own_session`,
      5,
    ),
  };
}
