/**
 * The statements that recompute a member's buckets over a time range from
 * the facts the projection holds (ADR 0018). Parameters: $1 member id,
 * $2 workspace id, $3 the range's start, $4 its end (timestamptz), $5 the
 * member's zone (day buckets only). Every bucket that overlaps the range is
 * deleted and written again, so applying the same facts twice, or in
 * another order, leaves the same rows.
 *
 * Closed sessions only: a live session's time grows with the clock, so the
 * reports add it at query time (at most one per member, D-22).
 */
export type Grain = 'hour' | 'day';

const boundsSql = (grain: Grain): string =>
  grain === 'hour'
    ? `SELECT h AS bucket, h AS b0, h + interval '1 hour' AS b1
         FROM generate_series(date_trunc('hour', $3::timestamptz, 'UTC'), $4::timestamptz - interval '1 microsecond', interval '1 hour') h`
    : `SELECT d::date AS bucket, d AT TIME ZONE $5::text AS b0, (d + interval '1 day') AT TIME ZONE $5::text AS b1
         FROM generate_series(date_trunc('day', $3::timestamptz AT TIME ZONE $5::text),
                              ($4::timestamptz - interval '1 microsecond') AT TIME ZONE $5::text, interval '1 day') d`;

const ms = (interval: string): string => `(EXTRACT(EPOCH FROM ${interval}) * 1000)::bigint`;

/** Deletes the member's buckets that overlap the range (same parameters; $2 unused). */
export function clearSql(schema: string, grain: Grain): string {
  return `WITH b AS (${boundsSql(grain)})
     DELETE FROM "${schema}"."${grain}_buckets" t USING b WHERE t.member_id = $1 AND t.bucket = b.bucket AND $2::uuid IS NOT NULL`;
}

/** Writes the member's buckets that overlap the range from the facts (after clearSql). */
export function recomputeSql(schema: string, grain: Grain): string {
  const table = `"${schema}"."${grain}_buckets"`;
  const s = `"${schema}"`;
  return `WITH b AS (${boundsSql(grain)}),
     span AS (SELECT min(b0) AS lo, max(b1) AS hi FROM b),
     sess AS (
       SELECT x.* FROM ${s}.sessions x, span
        WHERE x.member_id = $1 AND x.state = 'closed' AND x.started_at < span.hi AND x.closed_at >= span.lo),
     sess_rows AS (
       SELECT b.bucket, x.work_type, COALESCE(x.project_id::text, '') AS project_id, COALESCE(x.goal_id::text, '') AS goal_id,
              GREATEST(0, ${ms('LEAST(x.closed_at, b.b1) - GREATEST(x.started_at, b.b0)')}) AS total_ms,
              COALESCE((SELECT sum(GREATEST(0, ${ms(`LEAST(COALESCE(p.resumed_at, x.closed_at), x.closed_at, b.b1) - GREATEST(p.paused_at, x.started_at, b.b0)`)}))
                          FROM ${s}.session_pauses p WHERE p.session_id = x.session_id), 0) AS paused_ms,
              CASE WHEN x.started_at >= b.b0 AND x.started_at < b.b1 THEN 1 ELSE 0 END AS started
         FROM sess x JOIN b ON x.started_at < b.b1 AND (x.closed_at > b.b0 OR x.started_at >= b.b0)),
     ev_rows AS (
       SELECT b.bucket, COALESCE(x.work_type, '') AS work_type, COALESCE(x.project_id::text, '') AS project_id,
              COALESCE(x.goal_id::text, '') AS goal_id,
              count(*) FILTER (WHERE e.session_id IS NOT NULL) AS linked, count(*) FILTER (WHERE e.session_id IS NULL) AS outside
         FROM ${s}.events e JOIN b ON e.occurred_at >= b.b0 AND e.occurred_at < b.b1
         LEFT JOIN ${s}.sessions x ON x.session_id = e.session_id
        WHERE e.member_id = $1
        GROUP BY 1, 2, 3, 4),
     us_rows AS (
       SELECT b.bucket, COALESCE(x.work_type, '') AS work_type, COALESCE(x.project_id::text, '') AS project_id,
              COALESCE(x.goal_id::text, '') AS goal_id,
              COALESCE(sum(u.cost), 0) AS cost, sum(u.input_tokens) AS input_tokens, sum(u.output_tokens) AS output_tokens
         FROM ${s}.usage u JOIN b ON u.occurred_at >= b.b0 AND u.occurred_at < b.b1
         LEFT JOIN ${s}.sessions x ON x.session_id = u.session_id
        WHERE u.member_id = $1
        GROUP BY 1, 2, 3, 4),
     facts AS (
       SELECT bucket, work_type, project_id, goal_id, total_ms - LEAST(paused_ms, total_ms) AS tracked_ms, LEAST(paused_ms, total_ms) AS paused_ms,
              started AS session_count, 0::bigint AS linked, 0::bigint AS outside, 0::numeric AS cost, 0::bigint AS input_tokens, 0::bigint AS output_tokens
         FROM sess_rows
       UNION ALL SELECT bucket, work_type, project_id, goal_id, 0, 0, 0, linked, outside, 0, 0, 0 FROM ev_rows
       UNION ALL SELECT bucket, work_type, project_id, goal_id, 0, 0, 0, 0, 0, cost, input_tokens, output_tokens FROM us_rows)
     INSERT INTO ${table} (workspace_id, member_id, bucket, work_type, project_id, goal_id, tracked_ms, paused_ms, session_count,
                           linked_event_count, outside_session_event_count, usage_cost, input_tokens, output_tokens)
     SELECT $2::uuid, $1::uuid, bucket, work_type, project_id, goal_id, sum(tracked_ms), sum(paused_ms), sum(session_count),
            sum(linked), sum(outside), sum(cost), sum(input_tokens), sum(output_tokens)
       FROM facts GROUP BY bucket, work_type, project_id, goal_id
     HAVING sum(tracked_ms) <> 0 OR sum(paused_ms) <> 0 OR sum(session_count) <> 0 OR sum(linked) <> 0 OR sum(outside) <> 0
         OR sum(cost) <> 0 OR sum(input_tokens) <> 0 OR sum(output_tokens) <> 0`;
}

/** The ISO week's Monday of a date (SQL). */
const monday = (day: string): string => `(${day} - (extract(isodow FROM ${day})::int - 1))`;

/**
 * Rewrites the member's week buckets over every week the range touches, from
 * its day buckets (after those are rewritten; same parameters as the day grain).
 */
export function rollUpWeeksSql(schema: string): [clear: string, write: string] {
  const s = `"${schema}"`;
  const lo = monday('($3::timestamptz AT TIME ZONE $5::text)::date');
  const hi = monday("(($4::timestamptz - interval '1 microsecond') AT TIME ZONE $5::text)::date");
  return [
    `DELETE FROM ${s}.week_buckets WHERE member_id = $1 AND bucket BETWEEN ${lo} AND ${hi} AND $2::uuid IS NOT NULL`,
    `INSERT INTO ${s}.week_buckets (workspace_id, member_id, bucket, work_type, project_id, goal_id, tracked_ms, paused_ms, session_count,
                                    linked_event_count, outside_session_event_count, usage_cost, input_tokens, output_tokens)
     SELECT $2::uuid, $1::uuid, ${monday('bucket')}, work_type, project_id, goal_id, sum(tracked_ms), sum(paused_ms), sum(session_count),
            sum(linked_event_count), sum(outside_session_event_count), sum(usage_cost), sum(input_tokens), sum(output_tokens)
       FROM ${s}.day_buckets WHERE member_id = $1 AND bucket BETWEEN ${lo} AND ${hi} + 6
      GROUP BY 3, 4, 5, 6`,
  ];
}

/**
 * Day rows computed at query time from the facts, cut at the midnights of
 * zone `tz` (D-50): for members in another zone when `tz` has an offset that
 * is not a whole number of hours, where UTC hour buckets would put part of
 * an hour on the wrong day. The same rules as the day buckets; one row per
 * member, day and session keys, with the bucket columns' names.
 * `members`, `from`, `to`, `tz` are SQL expressions (uuid[], date, date, text).
 */
export function factsByDaySql(schema: string, members: string, from: string, to: string, tz: string): string {
  const s = `"${schema}"`;
  return `WITH b AS (
       SELECT d::date AS bucket, d AT TIME ZONE ${tz} AS b0, (d + interval '1 day') AT TIME ZONE ${tz} AS b1
         FROM generate_series(${from}::date::timestamp, ${to}::date::timestamp, interval '1 day') d),
     span AS (SELECT min(b0) AS lo, max(b1) AS hi FROM b),
     sess AS (
       SELECT x.* FROM ${s}.sessions x, span
        WHERE x.member_id = ANY(${members}) AND x.state = 'closed' AND x.started_at < span.hi AND x.closed_at >= span.lo),
     sess_rows AS (
       SELECT x.member_id, b.bucket, x.work_type, COALESCE(x.project_id::text, '') AS project_id, COALESCE(x.goal_id::text, '') AS goal_id,
              GREATEST(0, ${ms('LEAST(x.closed_at, b.b1) - GREATEST(x.started_at, b.b0)')}) AS total_ms,
              COALESCE((SELECT sum(GREATEST(0, ${ms(`LEAST(COALESCE(p.resumed_at, x.closed_at), x.closed_at, b.b1) - GREATEST(p.paused_at, x.started_at, b.b0)`)}))
                          FROM ${s}.session_pauses p WHERE p.session_id = x.session_id), 0) AS paused_ms,
              CASE WHEN x.started_at >= b.b0 AND x.started_at < b.b1 THEN 1 ELSE 0 END AS started
         FROM sess x JOIN b ON x.started_at < b.b1 AND (x.closed_at > b.b0 OR x.started_at >= b.b0)),
     ev_rows AS (
       SELECT e.member_id, b.bucket, COALESCE(x.work_type, '') AS work_type, COALESCE(x.project_id::text, '') AS project_id,
              COALESCE(x.goal_id::text, '') AS goal_id,
              count(*) FILTER (WHERE e.session_id IS NOT NULL) AS linked, count(*) FILTER (WHERE e.session_id IS NULL) AS outside
         FROM span, ${s}.events e JOIN b ON e.occurred_at >= b.b0 AND e.occurred_at < b.b1
         LEFT JOIN ${s}.sessions x ON x.session_id = e.session_id
        WHERE e.member_id = ANY(${members}) AND e.occurred_at >= span.lo AND e.occurred_at < span.hi
        GROUP BY 1, 2, 3, 4, 5),
     us_rows AS (
       SELECT u.member_id, b.bucket, COALESCE(x.work_type, '') AS work_type, COALESCE(x.project_id::text, '') AS project_id,
              COALESCE(x.goal_id::text, '') AS goal_id,
              COALESCE(sum(u.cost), 0) AS cost, sum(u.input_tokens) AS input_tokens, sum(u.output_tokens) AS output_tokens
         FROM span, ${s}.usage u JOIN b ON u.occurred_at >= b.b0 AND u.occurred_at < b.b1
         LEFT JOIN ${s}.sessions x ON x.session_id = u.session_id
        WHERE u.member_id = ANY(${members}) AND u.occurred_at >= span.lo AND u.occurred_at < span.hi
        GROUP BY 1, 2, 3, 4, 5),
     facts AS (
       SELECT member_id, bucket, work_type, project_id, goal_id, total_ms - LEAST(paused_ms, total_ms) AS tracked_ms,
              LEAST(paused_ms, total_ms) AS paused_ms, started AS session_count, 0::bigint AS linked, 0::bigint AS outside,
              0::numeric AS cost, 0::bigint AS input_tokens, 0::bigint AS output_tokens
         FROM sess_rows
       UNION ALL SELECT member_id, bucket, work_type, project_id, goal_id, 0, 0, 0, linked, outside, 0, 0, 0 FROM ev_rows
       UNION ALL SELECT member_id, bucket, work_type, project_id, goal_id, 0, 0, 0, 0, 0, cost, input_tokens, output_tokens FROM us_rows)
     SELECT member_id, bucket AS day, work_type, project_id, goal_id, sum(tracked_ms) AS tracked_ms, sum(paused_ms) AS paused_ms,
            sum(session_count) AS session_count, sum(linked) AS linked_event_count, sum(outside) AS outside_session_event_count,
            sum(cost) AS usage_cost, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
       FROM facts GROUP BY 1, 2, 3, 4, 5`;
}

/** A fact table the hot topics write, and the metrics one of its rows contributes to a bucket. */
export type Fact = 'events' | 'usage';

const FACTS: Record<Fact, { id: string; columns: string[]; metrics: Record<string, string> }> = {
  events: {
    id: 'event_id',
    columns: ['session_id'],
    metrics: {
      linked_event_count: 'CASE WHEN r.session_id IS NOT NULL THEN r.sign ELSE 0 END',
      outside_session_event_count: 'CASE WHEN r.session_id IS NULL THEN r.sign ELSE 0 END',
    },
  },
  usage: {
    id: 'usage_id',
    columns: ['session_id', 'COALESCE(cost, 0) AS cost', 'input_tokens', 'output_tokens'],
    metrics: { usage_cost: 'r.sign * r.cost', input_tokens: 'r.sign * r.input_tokens', output_tokens: 'r.sign * r.output_tokens' },
  },
};

const METRICS = [
  'tracked_ms',
  'paused_ms',
  'session_count',
  'linked_event_count',
  'outside_session_event_count',
  'usage_cost',
  'input_tokens',
  'output_tokens',
] as const;

/** The bucket of a contributing row per grain (`r`: its UTC hour and its day in the member's zone). */
const GRAINS = { hour: 'r.hour', day: 'r.day', week: monday('r.day') } as const;
export type DeltaGrain = keyof typeof GRAINS;

/**
 * One statement that writes fact rows of the hot topics (EventsStored,
 * EventsLinked, UsageStored, UsageLinked) and, in the same statement, adds to
 * the hour, day and week buckets the difference between the written rows'
 * contribution after and before (ADR 0018). `input` is a SELECT of the
 * messages (column `id`: the fact's id); `upsert` is the INSERT … ON CONFLICT
 * of the fact rows without RETURNING. The `prior` CTE reads the rows as they
 * were before the statement (every CTE sees the statement's snapshot), and
 * only rows the upsert changed count: a row held unchanged (a stale link)
 * contributes nothing, a duplicate that rewrites a row the same contributes
 * +1 and -1 to the same bucket, a row without an instant (a link before its
 * event) contributes nothing until its instant arrives, and a relink moves
 * its count from the old session's keys to the new one's. The keys are those
 * of `recomputeSql` (the session's work type, project and goal, '' when
 * unknown); the day is the instant's date in the member's zone ('UTC' when
 * unknown), the week that day's ISO Monday, the hour the UTC hour — so the
 * buckets stay equal to a recompute from the facts. A bucket row whose
 * metrics all become zero is deleted instead (the recompute keeps none): the
 * statement reads each touched row as it was, and deletes the ones the
 * difference empties and upserts the others — disjoint rows, so one
 * statement does both.
 *
 * The same statement raises the summary revision (ADR 0018) of every
 * workspace a written row belongs to, in the row of the consumed partition
 * (parameters `$position`: topic, `$position + 1`: partition): a link names
 * no workspace, its fact row does, and a row the upsert left alone (a stale
 * link) or one without a workspace yet (a link before its event, which counts
 * nowhere) raises nothing.
 *
 * The caller holds the advisory locks of the rows' members, so no other
 * transaction writes their facts or buckets between the read and the write,
 * and the partition's position row, so no other transaction writes its
 * revision rows.
 */
export function factDeltaSql(schema: string, fact: Fact, input: string, upsert: string, position: number): string {
  const s = `"${schema}"`;
  const { id, columns, metrics } = FACTS[fact];
  const cols = columns.join(', ');
  const sums = METRICS.map((m) => `${metrics[m] ? `sum(${metrics[m]})` : '0'} AS ${m}`);
  const changed = Object.keys(metrics)
    .map((m) => `sum(${metrics[m]}) <> 0`)
    .join(' OR ');
  const sameKey =
    't.member_id = d.member_id AND t.bucket = d.bucket AND t.work_type = d.work_type AND t.project_id = d.project_id AND t.goal_id = d.goal_id';
  const zeroAfter = METRICS.map((m) => `t.${m} + d.${m} = 0`).join(' AND ');
  const grains = (Object.keys(GRAINS) as DeltaGrain[]).map((grain) => {
    const table = `${s}.${grain}_buckets`;
    return `${grain}_d AS (
       SELECT r.workspace_id, r.member_id, ${GRAINS[grain]} AS bucket, r.work_type, r.project_id, r.goal_id, ${sums.join(', ')}
         FROM keyed r GROUP BY 1, 2, 3, 4, 5, 6 HAVING ${changed}),
     ${grain}_gone AS (DELETE FROM ${table} t USING ${grain}_d d WHERE ${sameKey} AND ${zeroAfter}),
     ${grain}_up AS (
       INSERT INTO ${table} AS t (workspace_id, member_id, bucket, work_type, project_id, goal_id, ${METRICS.join(', ')})
       SELECT d.* FROM ${grain}_d d WHERE NOT EXISTS (SELECT FROM ${table} t WHERE ${sameKey} AND ${zeroAfter})
       ON CONFLICT (member_id, bucket, work_type, project_id, goal_id) DO UPDATE SET
         ${Object.keys(metrics)
           .map((m) => `${m} = t.${m} + EXCLUDED.${m}`)
           .join(', ')})`;
  });
  return `WITH input AS (${input}),
     prior AS (SELECT ${id} AS id, workspace_id, member_id, occurred_at, ${cols} FROM ${s}.${fact} WHERE ${id} IN (SELECT id FROM input)),
     up AS (${upsert} RETURNING ${id} AS id, workspace_id, member_id, occurred_at, ${cols}),
     contrib AS (
       SELECT 1 AS sign, up.* FROM up WHERE up.occurred_at IS NOT NULL
       UNION ALL SELECT -1, prior.* FROM prior JOIN up ON up.id = prior.id WHERE prior.occurred_at IS NOT NULL),
     keyed AS (
       SELECT c.*, date_trunc('hour', c.occurred_at, 'UTC') AS hour,
              (c.occurred_at AT TIME ZONE COALESCE(z.timezone, 'UTC'))::date AS day,
              COALESCE(x.work_type, '') AS work_type, COALESCE(x.project_id::text, '') AS project_id, COALESCE(x.goal_id::text, '') AS goal_id
         FROM contrib c LEFT JOIN ${s}.sessions x ON x.session_id = c.session_id LEFT JOIN ${s}.members z ON z.member_id = c.member_id),
     ${grains.join(',\n     ')},
     revised AS (${raiseRevisionsSql(schema, 'SELECT workspace_id FROM up', position)})
     SELECT count(*) AS changed FROM up`;
}

/**
 * Raises the summary revision (ADR 0018) of every workspace `workspaces`
 * selects (one column, `workspace_id`; nulls are skipped) in its row of the
 * consumed partition (parameters `$position`: topic, `$position + 1`:
 * partition), to the next number or the clock's, whichever is later (the
 * migration's default). A workspace's revision is the count and sum of its
 * partitions' rows, so a call writes only rows of the partition whose
 * position it holds: calls of other partitions never wait on them.
 */
export function raiseRevisionsSql(schema: string, workspaces: string, position: number): string {
  return `INSERT INTO "${schema}".workspace_revisions AS v (workspace_id, topic, partition)
       SELECT DISTINCT w.workspace_id, $${position}::text, $${position + 1}::int FROM (${workspaces}) w
        WHERE w.workspace_id IS NOT NULL ORDER BY 1
       ON CONFLICT (workspace_id, topic, partition) DO UPDATE SET revision = GREATEST(v.revision + 1, EXCLUDED.revision)`;
}
