import { gzipSync } from 'node:zlib';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  summaryCsv,
  summaryDocumentHeadParts,
  summaryDocumentTail,
  summaryGroupCount,
  summaryTuplesOf,
  SUMMARY_METRICS,
  Topics,
  type GetReportV1,
  type ReportGroupBy,
  type ReportV1,
  type SummaryColumns,
  type SummaryGroups,
} from '@worktrack/contracts';
import { KafkaClient, Metrics as ServiceMetrics, schemaOf, SignedCursor, withSpan, type CursorScope } from '@worktrack/platform';
import type { Counter } from 'prom-client';
import { ReportingConfig } from '../reporting.config';
import { factsByDaySql } from '../projection/buckets-sql';
import { gzipHead, gzipWithTail, SummaryCache, type GzipHead } from './summary-cache';
import { localDate, nextDay, splitByDay, startOfDay, wholeHourOffsets, wholeWeeks } from './day-split';

interface Metrics {
  tracked_ms: number;
  paused_ms: number;
  session_count: number;
  linked_event_count: number;
  outside_session_event_count: number;
  usage_cost: string;
  input_tokens: number;
  output_tokens: number;
}

interface VisibleMember {
  member_id: string;
  kind: string;
  timezone: string;
  plate_capacity: number;
}

const GROUP_KEY: Record<ReportGroupBy, string> = {
  member: 'member_id',
  member_kind: 'member_kind',
  work_type: 'work_type',
  project: 'project_id',
  goal: 'goal_id',
  day: 'day',
  week: 'week',
};

/** The group keys as aggregated (native types, cheap to sort and hash) … */
const GROUP_SQL: Record<ReportGroupBy, string> = {
  member: 'r.member_id',
  member_kind: 'm.kind',
  work_type: "NULLIF(r.work_type, '')",
  project: "NULLIF(r.project_id, '')",
  goal: "NULLIF(r.goal_id, '')",
  day: 'r.day',
  // The ISO week's Monday in integer arithmetic (2000-01-03 is a Monday); extract(isodow) is a numeric per row.
  week: "(r.day - ((r.day - DATE '2000-01-03') % 7 + 7) % 7)",
};
/** … and as answered (formatted once per group). */
const GROUP_OUT: Record<ReportGroupBy, (column: string) => string> = {
  member: (c) => `${c}::text`,
  member_kind: (c) => c,
  work_type: (c) => c,
  project: (c) => c,
  goal: (c) => c,
  day: (c) => `to_char(${c}, 'YYYY-MM-DD')`,
  week: (c) => `to_char(${c}, 'YYYY-MM-DD')`,
};

/** A decimal string without trailing zeros ("0" when none). */
export function decimal(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '0';
  const text = String(value);
  if (!text.includes('.')) return text === '-0' ? '0' : text;
  const trimmed = text.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '' || trimmed === '-0' ? '0' : trimmed;
}

/** Sums two decimal strings exactly (9 decimals at most, D-47). */
function addDecimal(a: string, b: string): string {
  const scale = 9;
  const big = (x: string): bigint => {
    const negative = x.startsWith('-');
    const [whole, frac = ''] = (negative ? x.slice(1) : x).split('.');
    const v = BigInt(whole || '0') * 10n ** BigInt(scale) + BigInt((frac + '0'.repeat(scale)).slice(0, scale) || '0');
    return negative ? -v : v;
  };
  const sum = big(a) + big(b);
  const negative = sum < 0n;
  const abs = negative ? -sum : sum;
  const unit = 10n ** BigInt(scale);
  return decimal(`${negative ? '-' : ''}${abs / unit}.${(abs % unit).toString().padStart(scale, '0')}`);
}

const zero = (): Metrics => ({
  tracked_ms: 0,
  paused_ms: 0,
  session_count: 0,
  linked_event_count: 0,
  outside_session_event_count: 0,
  usage_cost: '0',
  input_tokens: 0,
  output_tokens: 0,
});

const addInto = (into: Metrics, m: Metrics): void => {
  into.tracked_ms += m.tracked_ms;
  into.paused_ms += m.paused_ms;
  into.session_count += m.session_count;
  into.linked_event_count += m.linked_event_count;
  into.outside_session_event_count += m.outside_session_event_count;
  into.usage_cost = addDecimal(into.usage_cost, m.usage_cost);
  into.input_tokens += m.input_tokens;
  into.output_tokens += m.output_tokens;
};

const shown = (m: Metrics): Record<string, unknown> => ({
  tracked_seconds: Math.floor(m.tracked_ms / 1000),
  paused_seconds: Math.floor(m.paused_ms / 1000),
  session_count: m.session_count,
  linked_event_count: m.linked_event_count,
  outside_session_event_count: m.outside_session_event_count,
  usage_cost: m.usage_cost,
  input_tokens: m.input_tokens,
  output_tokens: m.output_tokens,
});

const isZero = (m: Metrics): boolean =>
  m.tracked_ms < 1000 &&
  m.paused_ms < 1000 &&
  m.session_count === 0 &&
  m.linked_event_count === 0 &&
  m.outside_session_event_count === 0 &&
  m.usage_cost === '0' &&
  m.input_tokens === 0 &&
  m.output_tokens === 0;

/**
 * The summary statement's settings, local to its transaction. A year of a large workspace sorts tens of thousands
 * of groups: in memory, not in temporary files. Grouped by member, day or week, the planner guesses about a tenth of
 * the groups and hashes them; a hash table of numeric aggregate states per group costs more than sorting the rows
 * and aggregating each group as it ends, which also leaves the groups in the answer's order. No parallel workers:
 * the columns come from one ordered stream (a large summary is split by member instead, `ReportsService.summed`).
 */
function summarySettings(q: GetReportV1): string {
  const manyGroups = q.groupBy.some((g) => g === 'member' || g === 'day' || g === 'week');
  return `SET LOCAL work_mem = '64MB'; SET LOCAL max_parallel_workers_per_gather = 0${manyGroups ? '; SET LOCAL enable_hashagg = off' : ''}`;
}

/** The summary statement's lists of JSON texts (`c0` …, joined with U+001F), split. */
function columnLists(summed: Record<string, string>): SummaryColumns {
  const lists: string[][] = [];
  for (let i = 0; `c${i}` in summed; i++) lists.push(summed[`c${i}`] === '' ? [] : summed[`c${i}`].split('\u001f'));
  return lists;
}

/** The totals of several summary statements over disjoint members, summed (as texts: the counts as bigints, the cost exact). */
function sumTotals(answers: Array<Record<string, string>>): Record<string, string> {
  const totals: Record<string, string> = {};
  for (const name of Object.keys(zero()))
    totals[name] =
      name === 'usage_cost'
        ? answers.reduce((a, x) => addDecimal(a, x[name]), '0')
        : answers.reduce((a, x) => a + BigInt(x[name]), 0n).toString();
  return totals;
}

/**
 * The reports (D-50 … D-52) from the projection: who sees what, the wait for
 * the projection to hold every write answered before `as_of`, the summary
 * from pre-aggregated buckets (day buckets for members whose zone is the
 * report's, hour buckets otherwise), live sessions added up to `as_of`.
 */
@Injectable()
export class ReportsService {
  private readonly s: string;
  /** Whether a summary split into several statements is in flight (`summed`). */
  private splitting = false;
  private readonly cached: Counter<'result'>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly kafka: KafkaClient,
    private readonly cursors: SignedCursor,
    private readonly config: ReportingConfig,
    private readonly cache: SummaryCache,
    metrics: ServiceMetrics,
  ) {
    this.s = `"${schemaOf(dataSource)}"`;
    this.cached = metrics.counter('worktrack_report_summary_cache_total', 'Summaries asked, by how the cache answered (hit, miss, skip).', [
      'result',
    ]);
  }

  async report(q: GetReportV1): Promise<ReportV1> {
    const asOf = new Date();
    // The steps worth seeing in a trace (bench:reports --stages): the wait, the statement (its pg span), the document.
    await withSpan(
      'report.freshness',
      () => ({}),
      () => this.caughtUp(asOf),
    );
    // The revision before anything the summary reads: a write committed after it raises it (ADR 0018).
    const revision = q.report === 'summary' && this.cache.enabled ? await this.revisionOf(q.actor.workspaceId) : null;
    const members = await this.visibleMembers(q);
    switch (q.report) {
      case 'summary':
        return this.summary(q, members, asOf, revision);
      case 'sessions':
        return this.sessions(q, members, asOf);
      case 'activity':
        return this.activity(q, members, asOf);
      case 'plate':
        return this.plate(q, members, asOf);
    }
  }

  /**
   * D-52: waits (at most REPORT_FRESHNESS_WAIT_MS) until the projection has
   * consumed every session change and usage record the broker held when the
   * request arrived — a write answered before then is in the report.
   */
  private async caughtUp(asOf: Date): Promise<void> {
    const deadline = asOf.getTime() + this.config.REPORT_FRESHNESS_WAIT_MS;
    const admin = await this.kafka.admin();
    // Both topics' end offsets asked at once: one broker round trip on the request's path, not two.
    const ends = await Promise.all(
      [Topics.sessionsEvents, Topics.ingestionUsage].map(async (def) => {
        const topic = this.kafka.topic(def);
        return (await admin.fetchTopicOffsets(topic)).map((p) => ({ topic, ...p }));
      }),
    );
    const wanted = ends
      .flat()
      .filter((p) => BigInt(p.high) > BigInt(p.low))
      .map((p) => ({ topic: p.topic, partition: p.partition, high: BigInt(p.high) }));
    if (wanted.length === 0) return;
    for (;;) {
      const rows = await this.dataSource.query<Array<{ topic: string; partition: number; next_offset: string }>>(
        `SELECT topic, partition, next_offset FROM ${this.s}.positions WHERE topic = ANY($1)`,
        [[...new Set(wanted.map((w) => w.topic))]],
      );
      const at = new Map(rows.map((r) => [`${r.topic}|${r.partition}`, BigInt(r.next_offset)]));
      if (wanted.every((w) => (at.get(`${w.topic}|${w.partition}`) ?? 0n) >= w.high)) return;
      if (Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** D-52: owners and admins (full scope) see the workspace, everyone else its own member; a foreign member id matches nothing (D-7). */
  private async visibleMembers(q: GetReportV1): Promise<VisibleMember[]> {
    const { actor, filters } = q;
    const everyone = actor.scope === 'full' && (actor.profile?.role === 'owner' || actor.profile?.role === 'admin');
    const only = everyone ? (filters.memberId ?? null) : actor.memberId;
    if (!everyone && filters.memberId && filters.memberId !== actor.memberId) return [];
    const rows = await this.dataSource.query<VisibleMember[]>(
      `SELECT member_id, kind, timezone, plate_capacity FROM ${this.s}.members
        WHERE workspace_id = $1 AND ($2::uuid IS NULL OR member_id = $2) AND ($3::text IS NULL OR kind = $3)`,
      [actor.workspaceId, only, filters.memberKind ?? null],
    );
    // A member the projection has not heard of yet (its own writes came first) still sees its rows.
    if (only && rows.length === 0 && only === actor.memberId && !filters.memberKind) {
      return [
        {
          member_id: actor.memberId,
          kind: 'human',
          timezone: actor.profile?.timezone ?? 'UTC',
          plate_capacity: actor.profile?.plateCapacity ?? 6,
        },
      ];
    }
    return rows;
  }

  /** The workspace's summary revision: the count and sum of its partitions' rows ('0:0' before its first write). */
  private async revisionOf(workspaceId: string): Promise<string> {
    const [row] = await this.dataSource.query<Array<{ revision: string }>>(
      `SELECT count(*)::text || ':' || coalesce(sum(revision), 0)::text AS revision FROM ${this.s}.workspace_revisions WHERE workspace_id = $1`,
      [workspaceId],
    );
    return row?.revision ?? '0:0';
  }

  private range(q: GetReportV1): { lo: Date; hi: Date } {
    return { lo: startOfDay(q.from, q.tz), hi: startOfDay(nextDay(q.to), q.tz) };
  }

  /**
   * The summary (D-50) for the visible members (D-52). Without a live session (D-50: the document then depends on
   * `as_of`) a rendered document is cached under the workspace's revision, the request's parameters and the visible
   * members, as its compressed head (up to `"meta":`); a hit compresses only this request's meta, `as_of` its own.
   */
  private async summary(q: GetReportV1, members: VisibleMember[], asOf: Date, revision: string | null): Promise<ReportV1> {
    const key =
      revision !== null && members.length > 0
        ? SummaryCache.keyOf({
            workspaceId: q.actor.workspaceId,
            revision,
            format: q.format ?? 'json',
            from: q.from,
            to: q.to,
            tz: q.tz,
            groupBy: q.groupBy,
            filters: { ...q.filters },
            members,
          })
        : null;
    const hit = key === null ? undefined : this.cache.get(key);
    if (hit) {
      this.cached.inc({ result: 'hit' });
      return withSpan(
        'report.summary.cached',
        () => ({}),
        () => {
          const meta = { as_of: asOf.toISOString(), tz: q.tz, from: q.from, to: q.to, totals: hit.totals };
          const body = gzipWithTail(hit.head, q.format === 'csv' ? '' : summaryDocumentTail(meta)).toString('base64');
          return Promise.resolve({ rows: [], body, asOf: meta.as_of, totals: hit.totals });
        },
      );
    }
    const rendered = await this.summaryRendered(q, members, asOf, key !== null);
    // Kept only when no write to the workspace committed while it was read (the revision unchanged after the reads).
    if (key !== null && rendered.head !== undefined && (await this.revisionOf(q.actor.workspaceId)) === revision) {
      this.cache.set(key, { head: rendered.head, totals: rendered.report.totals ?? {} });
      this.cached.inc({ result: 'miss' });
    } else this.cached.inc({ result: 'skip' });
    return rendered.report;
  }

  /** The summary rendered from the projection; `head` is the document up to its meta, when it may be cached (no live session). */
  private async summaryRendered(
    q: GetReportV1,
    members: VisibleMember[],
    asOf: Date,
    keep: boolean,
  ): Promise<{ report: ReportV1; head?: GzipHead }> {
    const keyNames = q.groupBy.map((g) => GROUP_KEY[g]);
    const answer = (
      groups: SummaryGroups,
      totals: Record<string, unknown>,
      cacheable: boolean,
    ): Promise<{ report: ReportV1; head?: GzipHead }> =>
      withSpan(
        'report.summary.document',
        () => ({ 'report.groups': summaryGroupCount(groups) }),
        () => {
          const meta = { as_of: asOf.toISOString(), tz: q.tz, from: q.from, to: q.to, totals };
          // The document's head as UTF-8 written part by part (a thousand groups each): no string of the whole
          // document is built, joined and encoded at once, which cost about three times as much.
          const head =
            q.format === 'csv'
              ? Buffer.from(summaryCsv(keyNames, summaryTuplesOf(groups)), 'utf8')
              : Buffer.concat(summaryDocumentHeadParts(keyNames, groups).map((part) => Buffer.from(part, 'utf8')));
          const tail = q.format === 'csv' ? '' : summaryDocumentTail(meta);
          // To be kept, the head is compressed on its own and the tail spliced on: the document is compressed once either way.
          if (keep && cacheable && this.cache.worthKeeping(head.length)) {
            const compressed = gzipHead(head);
            const body = gzipWithTail(compressed, tail).toString('base64');
            return Promise.resolve({ report: { rows: [], body, asOf: meta.as_of, totals }, head: compressed });
          }
          // Level 1: the repetitive document shrinks about fifty-fold at a few milliseconds per megabyte.
          const body = gzipSync(Buffer.concat([head, Buffer.from(tail, 'utf8')]), { level: 1 }).toString('base64');
          return Promise.resolve({ report: { rows: [], body, asOf: meta.as_of, totals } });
        },
      );
    if (members.length === 0) return answer({ rows: [] }, shown(zero()), false);
    // D-50: a live session counts up to as_of, split at each midnight of tz; without one the aggregate is the answer.
    const lives = await this.liveSessions(
      q,
      members.map((m) => m.member_id),
    );
    const live = lives.length > 0;
    const { sets, summed } = await this.summed(q, members, live);
    const k = q.groupBy.length;
    if (!live)
      return answer(
        { columnSets: sets },
        {
          tracked_seconds: Math.floor(Number(summed.tracked_ms) / 1000),
          paused_seconds: Math.floor(Number(summed.paused_ms) / 1000),
          session_count: Number(summed.session_count),
          linked_event_count: Number(summed.linked_event_count),
          outside_session_event_count: Number(summed.outside_session_event_count),
          usage_cost: summed.usage_cost,
          input_tokens: Number(summed.input_tokens),
          output_tokens: Number(summed.output_tokens),
        },
        true,
      );

    const merged = new Map<string, { group: Record<string, string | null>; metrics: Metrics }>();
    const add = (group: Record<string, string | null>, metrics: Metrics): void => {
      const key = JSON.stringify(group);
      const held = merged.get(key);
      if (held) addInto(held.metrics, metrics);
      else merged.set(key, { group, metrics: { ...metrics } });
    };
    for (const row of summaryTuplesOf({ columnSets: sets })) {
      const group: Record<string, string | null> = {};
      for (let i = 0; i < k; i++) group[keyNames[i]] = (row[i] as string | null) ?? null;
      add(group, {
        tracked_ms: Number(row[k]),
        paused_ms: Number(row[k + 1]),
        session_count: Number(row[k + 2]),
        linked_event_count: Number(row[k + 3]),
        outside_session_event_count: Number(row[k + 4]),
        usage_cost: decimal(row[k + 5]),
        input_tokens: Number(row[k + 6]),
        output_tokens: Number(row[k + 7]),
      });
    }
    const kinds = new Map(members.map((m) => [m.member_id, m.kind]));
    for (const session of lives) {
      for (const piece of splitByDay(session.started_at, asOf, session.pauses, q.tz)) {
        if (piece.day < q.from || piece.day > q.to) continue;
        const group: Record<string, string | null> = {};
        for (const g of q.groupBy) group[GROUP_KEY[g]] = this.keyOf(g, session, kinds.get(session.member_id) ?? null, piece.day);
        add(group, {
          ...zero(),
          tracked_ms: piece.trackedMs,
          paused_ms: piece.pausedMs,
          session_count: piece.day === localDate(session.started_at, q.tz) ? 1 : 0,
        });
      }
    }
    const totals = zero();
    const held: Array<{ order: string; group: Record<string, string | null>; metrics: Metrics }> = [];
    for (const { group, metrics } of merged.values()) {
      if (isZero(metrics)) continue;
      addInto(totals, metrics);
      held.push({ order: JSON.stringify(group), group, metrics });
    }
    held.sort((a, b) => a.order.localeCompare(b.order));
    return answer(
      {
        rows: held.map(({ group, metrics }) => {
          const shownMetrics = shown(metrics);
          return [...keyNames.map((name) => group[name] ?? null), ...SUMMARY_METRICS.map((name) => shownMetrics[name] as string | number)];
        }),
      },
      shown(totals),
      false,
    );
  }

  /**
   * The summary's groups (one list of JSON texts per column, in the answer's order) and its totals, from one
   * statement or — grouped by member first, for many members — from `REPORT_SUMMARY_STATEMENTS` statements over
   * consecutive runs of member ids, run at once on their own connections and joined in order. The statements share
   * one snapshot (exported by the first, REPEATABLE READ), so the answer is the projection at one instant however it
   * is split. One split summary at a time per process: a request holding a connection while it waits for a second is
   * then the only one, so requests never wait on each other's connections in a circle; the others meanwhile read in
   * one statement (with other requests in flight the cores are busy anyway).
   */
  private async summed(
    q: GetReportV1,
    members: VisibleMember[],
    live: boolean,
  ): Promise<{ sets: SummaryColumns[]; summed: Record<string, string> }> {
    const runs = this.splitting ? [members] : this.memberRuns(q, members);
    if (runs.length === 1) {
      // Every member of the workspace in the report's zone: the workspace index alone selects the rows.
      const wholeWorkspace =
        members.every((m) => m.timezone === q.tz) && (await this.workspaceSize(q.actor.workspaceId)) === members.length;
      const { sql, params } = this.summaryStatement(q, members, live, wholeWorkspace);
      const [summed] = await this.dataSource.transaction(async (m) => {
        await m.query(summarySettings(q));
        return m.query<Array<Record<string, string>>>(sql, params);
      });
      return { sets: [columnLists(summed)], summed };
    }
    const statements = runs.map((run) => this.summaryStatement(q, run, live, false));
    const runners = statements.map(() => this.dataSource.createQueryRunner());
    this.splitting = true;
    try {
      await Promise.all(runners.map((r) => r.connect()));
      await runners[0].query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${summarySettings(q)}`);
      const [{ snapshot }] = (await runners[0].query('SELECT pg_export_snapshot() AS snapshot')) as Array<{ snapshot: string }>;
      const answers = await Promise.all(
        runners.map(async (r, i) => {
          if (i > 0)
            await r.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '${snapshot}'; ${summarySettings(q)}`);
          const [summed] = (await r.query(statements[i].sql, statements[i].params)) as Array<Record<string, string>>;
          return summed;
        }),
      );
      return { sets: answers.map(columnLists), summed: sumTotals(answers) };
    } finally {
      await Promise.all(
        runners.map(async (r) => {
          if (r.isReleased) return;
          await r.query('ROLLBACK').catch(() => undefined);
          await r.release();
        }),
      );
      this.splitting = false;
    }
  }

  /**
   * The visible members in consecutive runs of ids, one per statement: grouped by member first (the answer's order is
   * the members' order, so the runs' groups follow one another), at least `REPORT_SUMMARY_MEMBERS_PER_STATEMENT`
   * members each; otherwise one run.
   */
  private memberRuns(q: GetReportV1, members: VisibleMember[]): VisibleMember[][] {
    const n = Math.min(
      this.config.REPORT_SUMMARY_STATEMENTS,
      Math.floor(members.length / this.config.REPORT_SUMMARY_MEMBERS_PER_STATEMENT),
    );
    if (q.groupBy[0] !== 'member' || n < 2) return [members];
    const sorted = [...members].sort((a, b) => (a.member_id < b.member_id ? -1 : a.member_id > b.member_id ? 1 : 0));
    const size = Math.ceil(sorted.length / n);
    const runs: VisibleMember[][] = [];
    for (let i = 0; i < sorted.length; i += size) runs.push(sorted.slice(i, i + size));
    return runs;
  }

  /**
   * The summary statement over `members`: one row, the groups as one list of JSON texts per column (`c0` …) and the
   * totals over the same groups. `wholeWorkspace` says `members` are all of the workspace's, all in the report's zone.
   */
  private summaryStatement(
    q: GetReportV1,
    members: VisibleMember[],
    live: boolean,
    wholeWorkspace: boolean,
  ): { sql: string; params: unknown[] } {
    const sameZone = members.filter((m) => m.timezone === q.tz).map((m) => m.member_id);
    const otherZone = members.filter((m) => m.timezone !== q.tz).map((m) => m.member_id);
    const { lo, hi } = this.range(q);
    const keys = q.groupBy.map((g) => `${GROUP_SQL[g]} AS "${GROUP_KEY[g]}"`);
    const params: unknown[] = [q.actor.workspaceId, q.from, q.to, q.tz, lo, hi, sameZone, otherZone, wholeWorkspace];
    const p = (v: unknown): string => `$${params.push(v)}`;
    const where: string[] = [];
    if (q.filters.workType) where.push(`r.work_type = ${p(q.filters.workType)}`);
    if (q.filters.projectId) where.push(`r.project_id = ${p(q.filters.projectId)}`);
    if (q.filters.goalId) where.push(`r.goal_id = ${p(q.filters.goalId)}`);
    const cols = `work_type, project_id, goal_id, tracked_ms, paused_ms, session_count, linked_event_count, outside_session_event_count,
                  usage_cost, input_tokens, output_tokens`;
    const branches: string[] = [];
    const weeks = q.groupBy.includes('week') && !q.groupBy.includes('day') ? wholeWeeks(q.from, q.to) : null;
    const sameZoneRows = `workspace_id = $1 AND ($9::boolean OR member_id = ANY($7::uuid[]))`;
    if (sameZone.length > 0 && weeks) {
      // By week: whole weeks from the week roll-up (day = the week's Monday), the partial weeks at the ends from days.
      const [first, last] = [p(weeks.firstMonday), p(weeks.lastSunday)];
      branches.push(`SELECT member_id, bucket AS day, ${cols} FROM ${this.s}.week_buckets
                      WHERE ${sameZoneRows} AND bucket BETWEEN ${first}::date AND ${last}::date - 6`);
      branches.push(`SELECT member_id, bucket AS day, ${cols} FROM ${this.s}.day_buckets
                      WHERE ${sameZoneRows} AND bucket BETWEEN $2::date AND $3::date AND bucket NOT BETWEEN ${first}::date AND ${last}::date`);
    } else if (sameZone.length > 0)
      branches.push(`SELECT member_id, bucket AS day, ${cols} FROM ${this.s}.day_buckets
                      WHERE ${sameZoneRows} AND bucket BETWEEN $2::date AND $3::date`);
    if (otherZone.length > 0 && !wholeHourOffsets(q.from, q.to, q.tz))
      // Midnights of tz inside UTC hours (offsets of 15, 30 or 45 minutes): those members' days from the facts, exact.
      branches.push(
        `SELECT member_id, day, ${cols} FROM (${factsByDaySql(schemaOf(this.dataSource), '$8::uuid[]', '$2', '$3', '$4::text')}) f WHERE $1::uuid IS NOT NULL`,
      );
    else if (otherZone.length > 0)
      branches.push(`SELECT member_id, (bucket AT TIME ZONE $4::text)::date AS day, ${cols} FROM ${this.s}.hour_buckets
                      WHERE workspace_id = $1 AND bucket >= $5::timestamptz AND bucket < $6::timestamptz AND member_id = ANY($8::uuid[])`);
    const inner = `SELECT ${[...keys, ''].join(', ')}
        COALESCE(sum(r.tracked_ms), 0)::bigint AS tracked_ms, COALESCE(sum(r.paused_ms), 0)::bigint AS paused_ms,
        COALESCE(sum(r.session_count), 0)::bigint AS session_count, COALESCE(sum(r.linked_event_count), 0)::bigint AS linked_event_count,
        COALESCE(sum(r.outside_session_event_count), 0)::bigint AS outside_session_event_count, COALESCE(sum(r.usage_cost), 0) AS usage_cost,
        COALESCE(sum(r.input_tokens), 0)::bigint AS input_tokens, COALESCE(sum(r.output_tokens), 0)::bigint AS output_tokens
      FROM (${branches.join(' UNION ALL ')}) r
      ${q.groupBy.includes('member_kind') ? `LEFT JOIN ${this.s}.members m ON m.member_id = r.member_id` : ''}
      WHERE $2::date IS NOT NULL AND $3::date IS NOT NULL AND $4::text IS NOT NULL AND $5::timestamptz IS NOT NULL AND $6::timestamptz IS NOT NULL
        AND $7::uuid[] IS NOT NULL AND $8::uuid[] IS NOT NULL AND $9::boolean IS NOT NULL ${where.map((w) => `AND ${w}`).join(' ')}
      ${q.groupBy.length > 0 ? `GROUP BY ${q.groupBy.map((_, i) => i + 1).join(', ')}` : ''}`;
    const order = q.groupBy.map((g) => `g."${GROUP_KEY[g]}" NULLS LAST`);
    // One row back, not 26,500 driver rows: the groups as one list of JSON texts per column (each key through to_json,
    // each metric a number, the cost a JSON string), and the totals summed over the same groups in the same pass.
    // A text per column costs Postgres a fraction of a JSON value per group (json_build_array or format() per group
    // cost more than the aggregate itself), and Node pastes the texts into the document without parsing them. Every
    // column is aggregated in one pass over one sorted subquery, so each list holds the groups in the answer's order
    // (an ORDER BY inside each column's aggregate would sort once per column). The lists are joined with U+001F, which
    // to_json escapes and no number holds. With a live session to add, milliseconds and every group (a group below a
    // second may reach one); without, seconds and only the groups with activity.
    const ms = (column: string): string => (live ? column : `${column} / 1000`);
    const columns = [
      ...q.groupBy.map((g) => `COALESCE(to_json(${GROUP_OUT[g](`g."${GROUP_KEY[g]}"`)})::text, 'null')`),
      `(${ms('g.tracked_ms')})::text`,
      `(${ms('g.paused_ms')})::text`,
      'g.session_count::text',
      'g.linked_event_count::text',
      'g.outside_session_event_count::text',
      `'"' || trim_scale(g.usage_cost)::text || '"'`,
      'g.input_tokens::text',
      'g.output_tokens::text',
    ];
    const sql = `SELECT ${columns.map((c, i) => `COALESCE(string_agg(${c}, E'\\x1f'), '') AS c${i}`).join(', ')},
        COALESCE(sum(g.tracked_ms), 0)::text AS tracked_ms, COALESCE(sum(g.paused_ms), 0)::text AS paused_ms,
        COALESCE(sum(g.session_count), 0)::text AS session_count, COALESCE(sum(g.linked_event_count), 0)::text AS linked_event_count,
        COALESCE(sum(g.outside_session_event_count), 0)::text AS outside_session_event_count,
        trim_scale(COALESCE(sum(g.usage_cost), 0))::text AS usage_cost,
        COALESCE(sum(g.input_tokens), 0)::text AS input_tokens, COALESCE(sum(g.output_tokens), 0)::text AS output_tokens
      FROM (SELECT * FROM (${inner}) g
      ${
        live
          ? ''
          : `WHERE NOT (g.tracked_ms < 1000 AND g.paused_ms < 1000 AND g.session_count = 0 AND g.linked_event_count = 0
                    AND g.outside_session_event_count = 0 AND g.usage_cost = 0 AND g.input_tokens = 0 AND g.output_tokens = 0)`
      }
      ${order.length > 0 ? `ORDER BY ${order.join(', ')}` : ''}) g`;
    return { sql, params };
  }

  private async workspaceSize(workspaceId: string): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM ${this.s}.members WHERE workspace_id = $1`,
      [workspaceId],
    );
    return row?.n ?? 0;
  }

  private keyOf(g: ReportGroupBy, s: LiveSession, kind: string | null, day: string): string | null {
    switch (g) {
      case 'member':
        return s.member_id;
      case 'member_kind':
        return kind;
      case 'work_type':
        return s.work_type;
      case 'project':
        return s.project_id;
      case 'goal':
        return s.goal_id;
      case 'day':
        return day;
      case 'week': {
        const d = new Date(`${day}T00:00:00Z`);
        d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
        return d.toISOString().slice(0, 10);
      }
    }
  }

  private async liveSessions(q: GetReportV1, memberIds: string[]): Promise<LiveSession[]> {
    const rows = await this.dataSource.query<Array<Omit<LiveSession, 'pauses'>>>(
      `SELECT session_id, member_id, work_type, project_id::text, goal_id::text, started_at FROM ${this.s}.sessions
        WHERE workspace_id = $1 AND state <> 'closed' AND member_id = ANY($2::uuid[])
          AND ($3::text IS NULL OR work_type = $3) AND ($4::uuid IS NULL OR project_id = $4) AND ($5::uuid IS NULL OR goal_id = $5)`,
      [q.actor.workspaceId, memberIds, q.filters.workType ?? null, q.filters.projectId ?? null, q.filters.goalId ?? null],
    );
    const pauses = await this.pausesOf(rows.map((r) => r.session_id));
    return rows.map((r) => ({ ...r, pauses: pauses.get(r.session_id) ?? [] }));
  }

  private async pausesOf(ids: string[]): Promise<Map<string, Array<{ pausedAt: Date; resumedAt: Date | null }>>> {
    const out = new Map<string, Array<{ pausedAt: Date; resumedAt: Date | null }>>();
    if (ids.length === 0) return out;
    const rows = await this.dataSource.query<Array<{ session_id: string; paused_at: Date; resumed_at: Date | null }>>(
      `SELECT session_id, paused_at, resumed_at FROM ${this.s}.session_pauses WHERE session_id = ANY($1::uuid[]) ORDER BY paused_at`,
      [ids],
    );
    for (const r of rows) out.set(r.session_id, [...(out.get(r.session_id) ?? []), { pausedAt: r.paused_at, resumedAt: r.resumed_at }]);
    return out;
  }

  /** D-51: one row per session overlapping the period, newest first, with its totals, events and spend (cursor as D-29). */
  private async sessions(q: GetReportV1, members: VisibleMember[], asOf: Date): Promise<ReportV1> {
    const scope: CursorScope = {
      list: 'reports.sessions',
      owner: q.actor.memberId,
      filters: { from: q.from, to: q.to, tz: q.tz, ...q.filters },
    };
    const after = q.cursor ? this.cursors.decode(q.cursor, scope) : undefined;
    const limit = q.limit ?? 50;
    if (members.length === 0) return { rows: [], asOf: asOf.toISOString(), nextCursor: null };
    const { lo, hi } = this.range(q);
    const rows = await this.dataSource.query<Array<SessionRow>>(
      `SELECT s.session_id, s.member_id, s.intent_text, s.state, s.source, s.work_type, s.goal_id, s.project_id, s.started_at, s.closed_at,
              s.user_tags, s.created_at,
              (SELECT count(*) FROM ${this.s}.events e WHERE e.session_id = s.session_id)::int AS linked_event_count,
              (SELECT COALESCE(sum(u.cost), 0)::text FROM ${this.s}.usage u WHERE u.session_id = s.session_id) AS usage_cost
         FROM ${this.s}.sessions s
        WHERE s.workspace_id = $1 AND s.member_id = ANY($2::uuid[]) AND s.started_at < $4 AND (s.closed_at IS NULL OR s.closed_at > $3 OR s.started_at >= $3)
          AND ($5::text IS NULL OR s.work_type = $5) AND ($6::uuid IS NULL OR s.project_id = $6) AND ($7::uuid IS NULL OR s.goal_id = $7)
          AND ($8::timestamptz IS NULL OR (s.started_at, s.session_id) < ($8::timestamptz, $9::uuid))
        ORDER BY s.started_at DESC, s.session_id DESC
        LIMIT $10`,
      [
        q.actor.workspaceId,
        members.map((m) => m.member_id),
        lo,
        hi,
        q.filters.workType ?? null,
        q.filters.projectId ?? null,
        q.filters.goalId ?? null,
        after ? String(after[0]) : null,
        after ? String(after[1]) : null,
        limit + 1,
      ],
    );
    const page = rows.slice(0, limit);
    const pauses = await this.pausesOf(page.map((r) => r.session_id));
    const out = page.map((r) => {
      const end = r.closed_at ?? asOf;
      const ps = pauses.get(r.session_id) ?? [];
      const pieces = splitByDay(r.started_at, end, ps, 'UTC');
      const tracked = pieces.reduce((a, x) => a + x.trackedMs, 0);
      const paused = pieces.reduce((a, x) => a + x.pausedMs, 0);
      return {
        session_id: r.session_id,
        member_id: r.member_id,
        intent_text: r.intent_text,
        state: r.state,
        source: r.source,
        work_type: r.work_type,
        goal_id: r.goal_id,
        project_id: r.project_id,
        started_at: r.started_at.toISOString(),
        closed_at: r.closed_at ? r.closed_at.toISOString() : null,
        user_tags: r.user_tags,
        created_at: r.created_at.toISOString(),
        tracked_seconds: Math.floor(tracked / 1000),
        paused_seconds: Math.floor(paused / 1000),
        linked_event_count: r.linked_event_count,
        usage_cost: decimal(r.usage_cost),
      };
    });
    const last = page[page.length - 1];
    const nextCursor = rows.length > limit && last ? this.cursors.encode([last.started_at.toISOString(), last.session_id], scope) : null;
    return { rows: out, asOf: asOf.toISOString(), nextCursor };
  }

  /** D-51: events per source and event type, in and outside sessions. */
  private async activity(q: GetReportV1, members: VisibleMember[], asOf: Date): Promise<ReportV1> {
    if (members.length === 0) return { rows: [], asOf: asOf.toISOString() };
    const { lo, hi } = this.range(q);
    const sessionFilter = Boolean(q.filters.workType || q.filters.projectId || q.filters.goalId);
    const rows = await this.dataSource.query<
      Array<{ source_type: string; event_type: string; in_session: string; outside_session: string }>
    >(
      `SELECT COALESCE(e.source_type, '') AS source_type, COALESCE(e.event_type, '') AS event_type,
              count(*) FILTER (WHERE e.session_id IS NOT NULL) AS in_session, count(*) FILTER (WHERE e.session_id IS NULL) AS outside_session
         FROM ${this.s}.events e LEFT JOIN ${this.s}.sessions s ON s.session_id = e.session_id
        WHERE e.member_id = ANY($1::uuid[]) AND e.occurred_at >= $2 AND e.occurred_at < $3
          AND (NOT $7::boolean OR s.session_id IS NOT NULL)
          AND ($4::text IS NULL OR s.work_type = $4) AND ($5::uuid IS NULL OR s.project_id = $5) AND ($6::uuid IS NULL OR s.goal_id = $6)
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [
        members.map((m) => m.member_id),
        lo,
        hi,
        q.filters.workType ?? null,
        q.filters.projectId ?? null,
        q.filters.goalId ?? null,
        sessionFilter,
      ],
    );
    return {
      rows: rows.map((r) => ({
        source_type: r.source_type,
        event_type: r.event_type,
        in_session: Number(r.in_session),
        outside_session: Number(r.outside_session),
      })),
      asOf: asOf.toISOString(),
    };
  }

  /**
   * D-51: per assignee and plate day, the items put there, those done, those
   * that landed there from an earlier asked-for day (in) and those asked for
   * that day that landed later (out, counted on the asked-for day).
   */
  private async plate(q: GetReportV1, members: VisibleMember[], asOf: Date): Promise<ReportV1> {
    if (members.length === 0) return { rows: [], asOf: asOf.toISOString() };
    const rows = await this.dataSource.query<
      Array<{ assignee_id: string; day: string; assigned: string; done: string; overflowed_in: string; overflowed_out: string }>
    >(
      `SELECT assignee_id, to_char(day, 'YYYY-MM-DD') AS day,
              sum(assigned) AS assigned, sum(done) AS done, sum(overflowed_in) AS overflowed_in, sum(overflowed_out) AS overflowed_out
         FROM (
           SELECT assignee_id, plate_date AS day, count(*) AS assigned, count(done_at) AS done,
                  count(*) FILTER (WHERE overflowed) AS overflowed_in, 0 AS overflowed_out
             FROM ${this.s}.plate_items
            WHERE workspace_id = $1 AND assignee_id = ANY($2::uuid[]) AND plate_date BETWEEN $3::date AND $4::date
            GROUP BY 1, 2
           UNION ALL
           SELECT assignee_id, requested_date, 0, 0, 0, count(*)
             FROM ${this.s}.plate_items
            WHERE workspace_id = $1 AND assignee_id = ANY($2::uuid[]) AND requested_date BETWEEN $3::date AND $4::date
              AND requested_date IS NOT NULL AND requested_date <> plate_date
            GROUP BY 1, 2) r
        GROUP BY 1, 2 ORDER BY 2, 1`,
      [q.actor.workspaceId, members.map((m) => m.member_id), q.from, q.to],
    );
    const capacity = new Map(members.map((m) => [m.member_id, m.plate_capacity]));
    return {
      rows: rows.map((r) => ({
        assignee_id: r.assignee_id,
        day: r.day,
        capacity: capacity.get(r.assignee_id) ?? 0,
        assigned: Number(r.assigned),
        done: Number(r.done),
        overflowed_in: Number(r.overflowed_in),
        overflowed_out: Number(r.overflowed_out),
      })),
      asOf: asOf.toISOString(),
    };
  }
}

interface LiveSession {
  session_id: string;
  member_id: string;
  work_type: string;
  project_id: string | null;
  goal_id: string | null;
  started_at: Date;
  pauses: Array<{ pausedAt: Date; resumedAt: Date | null }>;
}

interface SessionRow {
  session_id: string;
  member_id: string;
  intent_text: string;
  state: string;
  source: string;
  work_type: string;
  goal_id: string | null;
  project_id: string | null;
  started_at: Date;
  closed_at: Date | null;
  user_tags: string[];
  created_at: Date;
  linked_event_count: number;
  usage_cost: string;
}
