import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { MAX_CLOSE_BACKDATE_MS } from '@worktrack/contracts';
import { outboxNotifySql, queryPrepared, SchemaRepository, type QueuedMessage } from '@worktrack/platform';
import { SessionEntity } from './entities/session.entity';
import {
  COLUMNS,
  entities,
  INSERT_COLUMNS,
  INSERT_VALUES,
  insertParams,
  isUniqueViolation,
  LIVE,
  ms,
  toEntity,
  type KeyClaim,
  type NewSessionRow,
  type SessionKey,
  type SessionPageQuery,
  type SessionRow,
} from './session-rows';
import type { ChangedRefs } from './sessions.publisher';

/**
 * Sessions, pauses and idempotency keys of the sessions schema. Every state
 * change is one conditional statement on locked rows; the one-live-session
 * rule is the database's (partial unique index), never a read-then-write.
 */
@Injectable()
export class SessionsRepository extends SchemaRepository {
  private readonly sessions: string;
  private readonly pauses: string;
  private readonly keys: string;
  /** The session's columns and its pauses as `[[paused_at, resumed_at], …]` (D-49: the mapper derives the durations). */
  private readonly columns: string;

  constructor(dataSource: DataSource) {
    super(dataSource);
    const schema = this.schema;
    this.sessions = `"${schema}"."sessions"`;
    this.pauses = `"${schema}"."session_pauses"`;
    this.keys = `"${schema}"."idempotency_keys"`;
    this.columns = `${COLUMNS},
      (SELECT jsonb_agg(jsonb_build_array(p.paused_at, p.resumed_at) ORDER BY p.paused_at) FROM ${this.pauses} p
        WHERE p.session_id = sessions.id) AS pauses`;
  }

  /**
   * D-28: claims the member's key for `sessionId`. A concurrent transaction
   * holding the same key makes this one wait for its outcome: false once it
   * committed (the key is taken), true if it rolled back.
   */
  async claimIdempotencyKey(
    m: EntityManager,
    memberId: string,
    key: string,
    bodyHash: string,
    sessionId: string,
    now: Date,
  ): Promise<boolean> {
    const rows = await m.query<Array<{ session_id: string }>>(
      `INSERT INTO ${this.keys} (member_id, key, body_hash, session_id, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (member_id, key) DO NOTHING RETURNING session_id`,
      [memberId, key, bodyHash, sessionId, now],
    );
    return rows.length === 1;
  }

  async findIdempotencyKey(m: EntityManager, memberId: string, key: string): Promise<{ bodyHash: string; sessionId: string } | undefined> {
    const rows = await m.query<Array<{ body_hash: string; session_id: string }>>(
      `SELECT body_hash, session_id FROM ${this.keys} WHERE member_id = $1 AND key = $2`,
      [memberId, key],
    );
    return rows[0] ? { bodyHash: rows[0].body_hash, sessionId: rows[0].session_id } : undefined;
  }

  async find(m: EntityManager, id: string, memberId: string, workspaceId: string): Promise<SessionEntity | undefined> {
    const rows = await m.query<SessionRow[]>(
      `SELECT ${this.columns} FROM ${this.sessions} WHERE id = $1 AND member_id = $2 AND workspace_id = $3`,
      [id, memberId, workspaceId],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  /** Of these ids, the member's sessions in its workspace (D-45: a usage record names only its own). */
  async owned(ids: string[], memberId: string, workspaceId: string): Promise<string[]> {
    const rows = await this.dataSource.query<Array<{ id: string }>>(
      `SELECT id FROM ${this.sessions} WHERE id = ANY($1::uuid[]) AND member_id = $2 AND workspace_id = $3`,
      [ids, memberId, workspaceId],
    );
    return rows.map((r) => r.id);
  }

  /** The member's session, locked for the rest of the transaction. */
  async findForUpdate(m: EntityManager, id: string, memberId: string, workspaceId: string): Promise<SessionEntity | undefined> {
    const rows = await m.query<SessionRow[]>(
      `SELECT ${this.columns} FROM ${this.sessions} WHERE id = $1 AND member_id = $2 AND workspace_id = $3 FOR UPDATE`,
      [id, memberId, workspaceId],
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  /**
   * Inserts a session unless its id exists (a redelivered command) or, for a
   * live one, the member has a live session already: the partial unique
   * index is the arbiter (D-22). A concurrent start holding a live session
   * makes this wait for its transaction; undefined if that one committed.
   */
  async insert(m: EntityManager, s: NewSessionRow): Promise<SessionEntity | undefined> {
    const rows = await m.query<SessionRow[]>(
      `INSERT INTO ${this.sessions} (${INSERT_COLUMNS})
       VALUES (${INSERT_VALUES})
       ON CONFLICT DO NOTHING
       RETURNING ${this.columns}`,
      insertParams(s),
    );
    return rows[0] ? toEntity(rows[0]) : undefined;
  }

  /**
   * A start in one autocommitted statement when nothing stands in its way
   * (one round trip instead of BEGIN, the key, the insert, the
   * outbox row and COMMIT): claims the idempotency key (if any), inserts the
   * session and queues its `created` message, all or nothing. Undefined when
   * any of it would not simply apply — the key is taken (a retry, a
   * redelivery, another body), the member has a live session (D-23 closes it
   * first), the id exists, or a concurrent start won the live slot — and
   * then nothing was written: the caller runs the start in a transaction.
   */
  async insertQueued(
    s: NewSessionRow,
    claim: KeyClaim | undefined,
    message: QueuedMessage<ChangedRefs>,
  ): Promise<SessionEntity | undefined> {
    const params: unknown[] = insertParams(s);
    const p = (value: unknown): string => `$${params.push(value)}`;
    let created: string;
    if (claim) {
      // The key only when the session goes in too: no live session in sight for a timer, and
      // no ON CONFLICT on the session, so a concurrent live start fails the whole statement.
      const noLive = s.state === 'closed' ? '' : `WHERE NOT EXISTS (SELECT 1 FROM ${this.sessions} WHERE member_id = $3 AND ${LIVE})`;
      created = `claimed AS (
           INSERT INTO ${this.keys} (member_id, key, body_hash, session_id, created_at)
           SELECT $3::uuid, ${p(claim.key)}::varchar, ${p(claim.bodyHash)}::text, $1::uuid, $13::timestamptz ${noLive}
           ON CONFLICT (member_id, key) DO NOTHING
           RETURNING session_id),
         created AS (
           INSERT INTO ${this.sessions} (${INSERT_COLUMNS})
           SELECT ${INSERT_VALUES} FROM claimed
           RETURNING ${this.columns})`;
    } else {
      created = `created AS (
           INSERT INTO ${this.sessions} (${INSERT_COLUMNS})
           VALUES (${INSERT_VALUES})
           ON CONFLICT DO NOTHING
           RETURNING ${this.columns})`;
    }
    try {
      const [session] = entities(
        await queryPrepared(this.dataSource, this.queuing(`WITH ${created}`, 'created', `'created'`, message, p), params),
      );
      return session;
    } catch (err) {
      if (isUniqueViolation(err)) return undefined; // a concurrent start committed a live session first
      throw err;
    }
  }

  /**
   * D-23 and D-25 for a new timer: closes the member's live session (if any)
   * at `now` — or, when it is already past the maximum duration, at
   * `started_at + max` (`max_duration`). Never before its own start, so the
   * interval stays valid whatever the clocks say. Locks the row: a concurrent
   * start waits here, then finds nothing live, and its insert meets ours in
   * the unique index.
   */
  async closeLiveForNewTimer(m: EntityManager, memberId: string, now: Date, maxMs: number): Promise<SessionEntity[]> {
    const due = `started_at + ${ms(3)} <= $2`;
    return entities(
      await m.query(
        `WITH closed AS (
           UPDATE ${this.sessions}
              SET state = 'closed',
                  closed_at = CASE WHEN ${due} THEN started_at + ${ms(3)} ELSE GREATEST($2, started_at) END,
                  closed_reason = CASE WHEN ${due} THEN 'max_duration' ELSE 'new_timer' END,
                  revision = revision + 1, updated_at = $2
            WHERE member_id = $1 AND ${LIVE}
            RETURNING ${this.columns})${this.clipPauses('closed')}
         SELECT * FROM closed`,
        [memberId, now, maxMs],
      ),
    );
  }

  /** D-25 on touch: closes this (locked) session at `started_at + max` if it is live and past it. */
  async expireIfDue(m: EntityManager, id: string, now: Date, maxMs: number): Promise<SessionEntity | undefined> {
    const [expired] = entities(
      await m.query(
        `WITH expired AS (
           UPDATE ${this.sessions}
              SET state = 'closed', closed_at = started_at + ${ms(3)}, closed_reason = 'max_duration', revision = revision + 1, updated_at = $2
            WHERE id = $1 AND ${LIVE} AND started_at + ${ms(3)} <= $2
            RETURNING ${this.columns})${this.clipPauses('expired')}
         SELECT * FROM expired`,
        [id, now, maxMs],
      ),
    );
    return expired;
  }

  /**
   * D-25, the sweeper: closes up to `limit` live sessions past the maximum
   * duration at `started_at + max`. Rows another replica's sweep (or a
   * request) holds are skipped, so replicas never close one session twice.
   */
  async expireDue(m: EntityManager, now: Date, maxMs: number, limit: number): Promise<SessionEntity[]> {
    return entities(
      await m.query(
        `WITH due AS (
           SELECT id FROM ${this.sessions}
            WHERE ${LIVE} AND started_at <= $1::timestamptz - ${ms(2)}
            ORDER BY started_at
            LIMIT $3
            FOR UPDATE SKIP LOCKED),
         expired AS (
           UPDATE ${this.sessions} s
              SET state = 'closed', closed_at = s.started_at + ${ms(2)}, closed_reason = 'max_duration', revision = s.revision + 1, updated_at = $1
             FROM due
            WHERE s.id = due.id AND s.state IN ('active', 'paused')
            RETURNING s.*)${this.clipPauses('expired')}
         SELECT * FROM expired`,
        [now, maxMs, limit],
      ),
    );
  }

  /**
   * Pauses the member's session if it is active and within the maximum
   * duration, recording the pause, in one statement; undefined otherwise
   * (the caller finds out why). With `message`, the same statement queues
   * the `paused` change and commits on its own.
   */
  pauseIfActive(
    m: EntityManager | undefined,
    key: SessionKey,
    pauseId: string,
    reason: string | null,
    now: Date,
    maxMs: number,
    message?: QueuedMessage<ChangedRefs>,
  ): Promise<SessionEntity | undefined> {
    return this.changeOne(
      m,
      `WITH paused AS (
           UPDATE ${this.sessions} SET state = 'paused', revision = revision + 1, updated_at = $4
            WHERE id = $1 AND member_id = $2 AND workspace_id = $3 AND state = 'active' AND started_at + ${ms(5)} > $4
            RETURNING ${this.columns}),
         pause AS (
           INSERT INTO ${this.pauses} (id, session_id, paused_at, resumed_at, reason)
           SELECT $6::uuid, id, $4::timestamptz, NULL, $7::varchar FROM paused)`,
      'paused',
      `'paused'`,
      [key.id, key.memberId, key.workspaceId, now, maxMs, pauseId, reason],
      message,
    );
  }

  /** Resumes the member's session if it is paused and within the maximum duration, ending its pause; undefined otherwise. */
  resumeIfPaused(
    m: EntityManager | undefined,
    key: SessionKey,
    now: Date,
    maxMs: number,
    message?: QueuedMessage<ChangedRefs>,
  ): Promise<SessionEntity | undefined> {
    return this.changeOne(
      m,
      `WITH resumed AS (
           UPDATE ${this.sessions} SET state = 'active', revision = revision + 1, updated_at = $4
            WHERE id = $1 AND member_id = $2 AND workspace_id = $3 AND state = 'paused' AND started_at + ${ms(5)} > $4
            RETURNING ${this.columns}),
         ended AS (
           UPDATE ${this.pauses} p SET resumed_at = GREATEST($4::timestamptz, p.paused_at)
             FROM resumed r WHERE p.session_id = r.id AND p.resumed_at IS NULL)`,
      'resumed',
      `'resumed'`,
      [key.id, key.memberId, key.workspaceId, now, maxMs],
      message,
    );
  }

  /**
   * D-26 in one statement: closes the member's live session (within the
   * maximum duration) at `closedAt` (default now) if that is valid — not in
   * the future, at most 24 h ago, not before the start — capped at
   * `started_at + max`, cutting its pauses to the new end. Undefined
   * otherwise (the caller finds out why). The change is `backdated` when a
   * `closedAt` put the end before `now`, else `closed`.
   */
  closeIfLive(
    m: EntityManager | undefined,
    key: SessionKey,
    closedAt: Date | null,
    closingNote: string | null,
    now: Date,
    maxMs: number,
    message?: QueuedMessage<ChangedRefs>,
  ): Promise<SessionEntity | undefined> {
    return this.changeOne(
      m,
      `WITH closed AS (
           UPDATE ${this.sessions}
              SET state = 'closed', closed_at = LEAST(COALESCE($6::timestamptz, $4::timestamptz), started_at + ${ms(5)}),
                  closed_reason = 'explicit', closing_note = $7, revision = revision + 1, updated_at = $4
            WHERE id = $1 AND member_id = $2 AND workspace_id = $3 AND ${LIVE} AND started_at + ${ms(5)} > $4
              AND ($6::timestamptz IS NULL OR ($6 <= $4 AND $6 >= $4::timestamptz - ${ms(8)} AND $6 >= started_at))
            RETURNING ${this.columns})${this.clipPauses('closed')}`,
      'closed',
      `CASE WHEN $6::timestamptz IS NOT NULL AND c.closed_at < $4::timestamptz THEN 'backdated' ELSE 'closed' END`,
      [key.id, key.memberId, key.workspaceId, now, maxMs, closedAt, closingNote, MAX_CLOSE_BACKDATE_MS],
      message,
    );
  }

  /**
   * Runs a change of at most one session written as CTEs ending in `cte`.
   * Without `message`: in the caller's transaction, answering the changed
   * row. With it: autocommitted on its own, the change's SessionChanged
   * message (`change`, an SQL expression over the row `c`) queued by the
   * same statement — one round trip instead of BEGIN, the change, the outbox
   * row and COMMIT.
   */
  private async changeOne(
    m: EntityManager | undefined,
    ctes: string,
    cte: string,
    change: string,
    params: unknown[],
    message: QueuedMessage<ChangedRefs> | undefined,
  ): Promise<SessionEntity | undefined> {
    if (!message) {
      if (!m) throw new Error('a change without its message needs the transaction that queues it');
      return entities(await m.query(`${ctes}\n         SELECT * FROM ${cte}`, params))[0];
    }
    const p = (value: unknown): string => `$${params.push(value)}`;
    return entities(await queryPrepared(this.dataSource, this.queuing(ctes, cte, change, message, p), params))[0];
  }

  /**
   * `ctes` followed by a CTE that writes the SessionChanged message of each
   * row of `cte` to the outbox (the publisher's INSERT, built from the
   * contract) and a SELECT of those rows that NOTIFYs the relay when a
   * message was queued (delivered at commit).
   */
  private queuing(ctes: string, cte: string, change: string, message: QueuedMessage<ChangedRefs>, p: (value: unknown) => string): string {
    const insert = message.insertSql({
      schema: this.schema,
      messageId: `${p(message.messageId)}::uuid`,
      requestId: `${p(message.requestId)}::text`,
      traceparent: `${p(message.traceparent ?? null)}::text`,
      from: cte,
      change,
    });
    return `${ctes},
         queued AS (
           ${insert})
         SELECT ${cte}.*, (SELECT ${outboxNotifySql(this.schema)} FROM queued LIMIT 1) AS notified FROM ${cte}`;
  }

  /**
   * CTEs that keep the paused intervals of the sessions just closed in
   * `cte` inside `[started_at, closed_at)`: an open pause ends at
   * `closed_at`, and what a back-dated (or capped) close left after it is
   * cut off.
   */
  private clipPauses(cte: string): string {
    return `,
         cut AS (DELETE FROM ${this.pauses} p USING ${cte} c WHERE p.session_id = c.id AND p.paused_at >= c.closed_at),
         ended AS (
           UPDATE ${this.pauses} p SET resumed_at = c.closed_at FROM ${cte} c
            WHERE p.session_id = c.id AND p.paused_at < c.closed_at AND (p.resumed_at IS NULL OR p.resumed_at > c.closed_at))
        `;
  }

  /** D-29: newest started_at first, ties by id, keyset. */
  async page(q: SessionPageQuery): Promise<SessionEntity[]> {
    const where = ['member_id = $1', 'workspace_id = $2'];
    const params: unknown[] = [q.memberId, q.workspaceId];
    const add = (sql: (n: number) => string, value: unknown): void => {
      params.push(value);
      where.push(sql(params.length));
    };
    if (q.state) add((n) => `state = $${n}`, q.state);
    if (q.goalId) add((n) => `goal_id = $${n}::uuid`, q.goalId);
    if (q.projectId) add((n) => `project_id = $${n}::uuid`, q.projectId);
    if (q.from) add((n) => `started_at >= $${n}::timestamptz`, q.from);
    if (q.to) add((n) => `started_at < $${n}::timestamptz`, q.to);
    if (q.before) {
      params.push(q.before.startedAt, q.before.id);
      where.push(`(started_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(q.limit);
    // A prepared statement per combination of filters: a few dozen texts at most.
    const rows = await queryPrepared<SessionRow>(
      this.dataSource,
      `SELECT ${this.columns} FROM ${this.sessions}
        WHERE ${where.join(' AND ')}
        ORDER BY started_at DESC, id DESC
        LIMIT $${params.length}`,
      params,
    );
    return rows.map(toEntity);
  }
}
