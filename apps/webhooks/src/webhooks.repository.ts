import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryPrepared, schemaOf } from '@worktrack/platform';
import type { OutgoingMessage } from './messages/source-events';

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  event_types: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  created_at: Date;
}

export interface ClaimedDelivery {
  endpoint_id: string;
  webhook_id: string;
  attempts: number;
  type: string;
  body: string;
  message_created_at: Date;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
}

export interface AttemptRow {
  id: string;
  webhook_id: string;
  type: string;
  status_code: number | null;
  outcome: 'succeeded' | 'failed';
  duration_ms: number;
  attempted_at: Date;
  next_attempt_at: Date | null;
}

/** What an attempt's end changes (one statement: the delivery, the log, the endpoint). */
export interface AttemptResult {
  endpointId: string;
  webhookId: string;
  type: string;
  statusCode: number | null;
  succeeded: boolean;
  durationMs: number;
  attemptedAt: Date;
  /** null: no further attempt (succeeded, or the schedule is exhausted). */
  nextAttemptAt: Date | null;
  /** Set: the endpoint is disabled with this reason (410, or failing for 5 days). */
  disable: string | null;
}

/** What each enabled endpoint's workspace subscribes to: the union of their event types. */
export interface WorkspaceSubscriptions {
  workspace_id: string;
  event_types: string[];
}

/**
 * A connection of the pool that LISTENs to the endpoints' notifications
 * (the `endpoints_notify` trigger: a workspace id whenever what it
 * subscribes to may have changed).
 */
export interface EndpointsListener {
  /**
   * A round trip on the listening connection: when it resolves, every
   * notification of a commit before it started has been handed to
   * `onWorkspace` (Postgres sends a listener its pending notifications
   * before it reads the next statement).
   */
  fence(): Promise<void>;
  /** Stops listening and returns the connection to the pool. */
  close(): Promise<void>;
}

/** The listening connection's application_name. */
export const LISTENER_APPLICATION_NAME = 'webhooks-subscriptions';

/** What the listener needs of pg's client. */
interface ListeningClient {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (n: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (err?: unknown) => void): unknown;
  removeAllListeners(event: 'notification' | 'error' | 'end'): unknown;
}

/** What a run of attempt ends (in the order they ended) does to one endpoint's row. */
export interface StreakChange {
  endpointId: string;
  /** The last attempt succeeded: the failure streak is over. */
  succeeded: boolean;
  /** An attempt succeeded in the run: a streak the row holds ended, and `failingSince` starts the new one. */
  reset: boolean;
  /** The first failure after the run's last success (null when the last attempt succeeded). */
  failingSince: Date | null;
  /** Set: the endpoint is disabled with this reason. */
  disable: string | null;
}

/** Per endpoint, in id order (the order rows are locked in, whichever replica writes), what the attempts change. */
export function streakChanges(results: readonly AttemptResult[]): StreakChange[] {
  const byEndpoint = new Map<string, StreakChange>();
  for (const r of results) {
    const e = byEndpoint.get(r.endpointId) ?? {
      endpointId: r.endpointId,
      succeeded: false,
      reset: false,
      failingSince: null,
      disable: null,
    };
    if (r.succeeded) {
      e.succeeded = true;
      e.reset = true;
      e.failingSince = null;
    } else {
      if (e.failingSince === null) e.failingSince = r.attemptedAt;
      e.succeeded = false;
    }
    e.disable = r.disable ?? e.disable;
    byEndpoint.set(r.endpointId, e);
  }
  return [...byEndpoint.values()].sort((a, b) => a.endpointId.localeCompare(b.endpointId));
}

const ENDPOINT_COLUMNS =
  'id, workspace_id, url, event_types, description, enabled, disabled_reason, secret, previous_secret, previous_secret_until, failing_since, created_at';

/** The webhooks schema, in plain statements (each one round trip). */
@Injectable()
export class WebhooksRepository {
  private readonly s: string;

  constructor(private readonly dataSource: DataSource) {
    this.s = `"${schemaOf(dataSource)}"`;
  }

  async insertEndpoint(
    e: Omit<EndpointRow, 'created_at' | 'enabled' | 'disabled_reason' | 'previous_secret' | 'previous_secret_until' | 'failing_since'>,
  ): Promise<EndpointRow> {
    const rows = await this.dataSource.query<EndpointRow[]>(
      `INSERT INTO ${this.s}.endpoints (id, workspace_id, url, event_types, description, secret)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${ENDPOINT_COLUMNS}`,
      [e.id, e.workspace_id, e.url, e.event_types, e.description, e.secret],
    );
    return rows[0];
  }

  async endpoint(workspaceId: string, id: string): Promise<EndpointRow | null> {
    const rows = await this.dataSource.query<EndpointRow[]>(
      `SELECT ${ENDPOINT_COLUMNS} FROM ${this.s}.endpoints WHERE id = $1 AND workspace_id = $2`,
      [id, workspaceId],
    );
    return rows[0] ?? null;
  }

  /** Oldest first, after the keyset `after`. */
  async endpoints(workspaceId: string, limit: number, after?: { createdAt: string; id: string }): Promise<EndpointRow[]> {
    return this.dataSource.query<EndpointRow[]>(
      `SELECT ${ENDPOINT_COLUMNS} FROM ${this.s}.endpoints
        WHERE workspace_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
        ORDER BY created_at, id LIMIT $4`,
      [workspaceId, after?.createdAt ?? null, after?.id ?? null, limit],
    );
  }

  /** A PATCH (D-53): only the given fields; enabling again clears the reason and the failure streak. */
  async updateEndpoint(
    workspaceId: string,
    id: string,
    patch: { url?: string; eventTypes?: string[]; description?: string | null; enabled?: boolean },
  ): Promise<EndpointRow | null> {
    const rows = await this.dataSource.query<[EndpointRow[], number]>(
      `UPDATE ${this.s}.endpoints SET
          url = COALESCE($3, url),
          event_types = COALESCE($4, event_types),
          description = CASE WHEN $5 THEN $6 ELSE description END,
          enabled = COALESCE($7, enabled),
          disabled_reason = CASE WHEN $7 IS NULL THEN disabled_reason WHEN $7 THEN NULL ELSE 'disabled by a member' END,
          failing_since = CASE WHEN $7 THEN NULL ELSE failing_since END
        WHERE id = $1 AND workspace_id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
      [
        id,
        workspaceId,
        patch.url ?? null,
        patch.eventTypes ?? null,
        patch.description !== undefined,
        patch.description ?? null,
        patch.enabled ?? null,
      ],
    );
    return rows[0][0] ?? null;
  }

  async deleteEndpoint(workspaceId: string, id: string): Promise<EndpointRow | null> {
    const rows = await this.dataSource.query<[EndpointRow[], number]>(
      `DELETE FROM ${this.s}.endpoints WHERE id = $1 AND workspace_id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
      [id, workspaceId],
    );
    return rows[0][0] ?? null;
  }

  /** D-53: the new secret signs from now on; the one it replaces keeps signing until `until`. */
  async rotateSecret(workspaceId: string, id: string, sealed: string, until: Date): Promise<EndpointRow | null> {
    const rows = await this.dataSource.query<[EndpointRow[], number]>(
      `UPDATE ${this.s}.endpoints SET previous_secret = secret, previous_secret_until = $4, secret = $3
        WHERE id = $1 AND workspace_id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
      [id, workspaceId, sealed, until],
    );
    return rows[0][0] ?? null;
  }

  /** Per workspace with an enabled endpoint (all, or those named), the event types they subscribe to. */
  async subscriptions(workspaceIds: readonly string[] | null): Promise<WorkspaceSubscriptions[]> {
    return queryPrepared<WorkspaceSubscriptions>(
      this.dataSource,
      `SELECT e.workspace_id, array_agg(DISTINCT t.type) AS event_types
         FROM ${this.s}.endpoints e CROSS JOIN unnest(e.event_types) AS t(type)
        WHERE e.enabled AND ($1::uuid[] IS NULL OR e.workspace_id = ANY ($1::uuid[]))
        GROUP BY e.workspace_id`,
      [workspaceIds],
    );
  }

  /**
   * Holds a connection of the pool that LISTENs to `<schema>.endpoints`:
   * each notification's workspace goes to `onWorkspace`; `onLost` is
   * called once when the connection fails or ends (the listener is dead
   * then: close it and listen again).
   */
  async listenToEndpoints(onWorkspace: (workspaceId: string) => void, onLost: (err?: unknown) => void): Promise<EndpointsListener> {
    const channel = `${schemaOf(this.dataSource)}.endpoints`;
    const runner = this.dataSource.createQueryRunner();
    let lost = false;
    try {
      const client = (await runner.connect()) as ListeningClient;
      const lose = (err?: unknown): void => {
        if (lost) return;
        lost = true;
        onLost(err);
      };
      client.on('error', lose);
      client.on('end', lose);
      client.on('notification', (n) => {
        if (n.channel === channel && n.payload) onWorkspace(n.payload);
      });
      await client.query(`LISTEN "${channel}"`);
      // Named, so that an operator (or a test) can tell the listening backend apart in pg_stat_activity.
      await client.query(`SET application_name = '${LISTENER_APPLICATION_NAME}'`);
      return {
        fence: async () => {
          await client.query('SELECT 1');
        },
        close: async () => {
          lost = true;
          await client.query('UNLISTEN *; RESET application_name').catch(() => undefined);
          client.removeAllListeners('notification');
          client.removeAllListeners('end');
          client.removeAllListeners('error');
          // A failed connection stays in the pool's hands: pg drops it when released with an error.
          client.on('error', () => undefined);
          await runner.release().catch(() => undefined);
        },
      };
    } catch (err) {
      lost = true;
      await runner.release().catch(() => undefined);
      throw err;
    }
  }

  /**
   * D-54: stores the messages that have at least one subscribed, enabled
   * endpoint in their workspace, and a due delivery for each. A message id
   * already stored (the source event consumed again) adds nothing. Returns
   * how many deliveries it created.
   */
  async fanOut(messages: readonly OutgoingMessage[]): Promise<number> {
    if (messages.length === 0) return 0;
    const rows = await queryPrepared<{ n: string }>(
      this.dataSource,
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[]) AS i(id, workspace_id, type, body)
       ), targets AS (
         SELECT i.id, e.id AS endpoint_id FROM input i
           JOIN ${this.s}.endpoints e ON e.workspace_id = i.workspace_id AND e.enabled AND i.type = ANY (e.event_types)
       ), stored AS (
         INSERT INTO ${this.s}.messages (id, workspace_id, type, body)
         SELECT i.id, i.workspace_id, i.type, i.body FROM input i WHERE EXISTS (SELECT 1 FROM targets t WHERE t.id = i.id)
         ON CONFLICT (id) DO NOTHING RETURNING id
       ), queued AS (
         INSERT INTO ${this.s}.deliveries (endpoint_id, webhook_id)
         SELECT t.endpoint_id, t.id FROM targets t JOIN stored USING (id)
         ON CONFLICT DO NOTHING RETURNING 1
       )
       SELECT count(*) AS n FROM queued`,
      [messages.map((m) => m.webhookId), messages.map((m) => m.workspaceId), messages.map((m) => m.type), messages.map((m) => m.body)],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** A message for one endpoint only (`webhook.test`). */
  async queueFor(endpointId: string, message: OutgoingMessage): Promise<void> {
    await this.dataSource.query(
      `WITH stored AS (
         INSERT INTO ${this.s}.messages (id, workspace_id, type, body) VALUES ($1, $2, $3, $4) RETURNING id
       )
       INSERT INTO ${this.s}.deliveries (endpoint_id, webhook_id) SELECT $5, id FROM stored`,
      [message.webhookId, message.workspaceId, message.type, message.body, endpointId],
    );
  }

  /**
   * Claims due deliveries for this replica (D-55): per enabled endpoint
   * whose circuit is not open here, at most its free slots, oldest due
   * first, rows another replica holds skipped (FOR UPDATE SKIP LOCKED). A
   * claimed delivery is `sending` with a lease: its next_attempt_at is the
   * lease's end, so a replica that dies mid-attempt leaves it due again.
   */
  async claimDue(
    slots: ReadonlyMap<string, number>,
    perEndpoint: number,
    excluded: readonly string[],
    limit: number,
    leaseMs: number,
  ): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    return queryPrepared<ClaimedDelivery>(
      this.dataSource,
      `WITH eps AS (
         SELECT e.id, GREATEST(0, $3::int - COALESCE(b.busy, 0)) AS free
           FROM ${this.s}.endpoints e
           LEFT JOIN unnest($1::uuid[], $2::int[]) AS b(id, busy) ON b.id = e.id
          WHERE e.enabled AND NOT (e.id = ANY ($4::uuid[]))
       ), picked AS (
         SELECT x.endpoint_id, x.webhook_id FROM eps CROSS JOIN LATERAL (
           SELECT d.endpoint_id, d.webhook_id FROM ${this.s}.deliveries d
            WHERE d.endpoint_id = eps.id AND d.state IN ('pending', 'sending') AND d.next_attempt_at <= now()
            ORDER BY d.next_attempt_at LIMIT eps.free
            FOR UPDATE SKIP LOCKED) x
         LIMIT $5
       )
       UPDATE ${this.s}.deliveries d
          SET state = 'sending', attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $6::double precision / 1000)
         FROM picked p, ${this.s}.messages m, ${this.s}.endpoints e
        WHERE d.endpoint_id = p.endpoint_id AND d.webhook_id = p.webhook_id AND m.id = d.webhook_id AND e.id = d.endpoint_id
       RETURNING d.endpoint_id, d.webhook_id, d.attempts, m.type, m.body, m.created_at AS message_created_at,
                 e.url, e.secret, e.previous_secret, e.previous_secret_until, e.failing_since`,
      [[...slots.keys()], [...slots.values()], perEndpoint, excluded, limit, leaseMs],
    );
  }

  /**
   * Records the ends of attempts, in the order they ended, in one statement:
   * their log rows, their deliveries' states, and for each endpoint whose
   * failure streak starts or ends, or which is disabled, that change. An
   * endpoint row is written only then, not at every attempt (an answering
   * endpoint's row stays as it is). A deleted endpoint's attempts are not
   * logged (its log went with it).
   */
  async finish(results: ReadonlyArray<{ result: AttemptResult; attemptId: string }>): Promise<void> {
    if (results.length === 0) return;
    const endpoints = streakChanges(results.map((x) => x.result));
    await queryPrepared(
      this.dataSource,
      `WITH r AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::int[], $6::text[], $7::int[], $8::timestamptz[], $9::timestamptz[])
           AS r(id, endpoint_id, webhook_id, type, status_code, outcome, duration_ms, attempted_at, next_attempt_at)
       ), logged AS (
         INSERT INTO ${this.s}.attempts (id, endpoint_id, webhook_id, type, status_code, outcome, duration_ms, attempted_at, next_attempt_at)
         SELECT id, endpoint_id, webhook_id, type, status_code, outcome, duration_ms, attempted_at, next_attempt_at FROM r
          WHERE EXISTS (SELECT 1 FROM ${this.s}.endpoints e WHERE e.id = r.endpoint_id) RETURNING 1
       ), delivery AS (
         UPDATE ${this.s}.deliveries d
            SET state = CASE WHEN r.outcome = 'succeeded' THEN 'succeeded' WHEN r.next_attempt_at IS NULL THEN 'failed' ELSE 'pending' END,
                next_attempt_at = COALESCE(r.next_attempt_at, d.next_attempt_at)
           FROM r
          WHERE d.endpoint_id = r.endpoint_id AND d.webhook_id = r.webhook_id AND d.state = 'sending' RETURNING 1
       )
       UPDATE ${this.s}.endpoints e
          SET failing_since = CASE WHEN x.succeeded THEN NULL WHEN x.reset THEN x.failing_since ELSE COALESCE(e.failing_since, x.failing_since) END,
              enabled = e.enabled AND x.disable IS NULL,
              disabled_reason = COALESCE(x.disable, e.disabled_reason)
         FROM unnest($10::uuid[], $11::bool[], $12::bool[], $13::timestamptz[], $14::text[]) AS x(id, succeeded, reset, failing_since, disable)
        WHERE e.id = x.id
          AND (x.disable IS NOT NULL OR (x.succeeded AND e.failing_since IS NOT NULL) OR (NOT x.succeeded AND (x.reset OR e.failing_since IS NULL)))`,
      [
        results.map((x) => x.attemptId),
        results.map((x) => x.result.endpointId),
        results.map((x) => x.result.webhookId),
        results.map((x) => x.result.type),
        results.map((x) => x.result.statusCode),
        results.map((x) => (x.result.succeeded ? 'succeeded' : 'failed')),
        results.map((x) => Math.round(x.result.durationMs)),
        results.map((x) => x.result.attemptedAt),
        results.map((x) => x.result.nextAttemptAt),
        endpoints.map((e) => e.endpointId),
        endpoints.map((e) => e.succeeded),
        endpoints.map((e) => e.reset),
        endpoints.map((e) => e.failingSince),
        endpoints.map((e) => e.disable),
      ],
    );
  }

  /** Newest first (D-56), after the keyset `after`. */
  async attempts(endpointId: string, limit: number, after?: { createdAt: string; id: string }): Promise<AttemptRow[]> {
    return this.dataSource.query<AttemptRow[]>(
      `SELECT id, webhook_id, type, status_code, outcome, duration_ms, attempted_at, next_attempt_at
         FROM ${this.s}.attempts
        WHERE endpoint_id = $1 AND ($2::timestamptz IS NULL OR (attempted_at, id) < ($2::timestamptz, $3::uuid))
        ORDER BY attempted_at DESC, id DESC LIMIT $4`,
      [endpointId, after?.createdAt ?? null, after?.id ?? null, limit],
    );
  }

  /** D-56: the message again, same id and body, to every endpoint of the workspace it went to (one in flight is left alone). */
  async replay(workspaceId: string, webhookId: string): Promise<number | null> {
    const rows = await this.dataSource.query<Array<{ known: boolean; n: string }>>(
      `WITH msg AS (SELECT id FROM ${this.s}.messages WHERE id = $1 AND workspace_id = $2),
       again AS (
         UPDATE ${this.s}.deliveries d SET state = 'pending', attempts = 0, next_attempt_at = now()
           FROM msg WHERE d.webhook_id = msg.id AND d.state <> 'sending' RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM msg) AS known, (SELECT count(*) FROM again) AS n`,
      [webhookId, workspaceId],
    );
    return rows[0]?.known ? Number(rows[0].n) : null;
  }

  /** D-56: every message created since `since` whose latest attempt to this endpoint failed, sent again. */
  async recover(endpointId: string, since: Date): Promise<number> {
    const rows = await this.dataSource.query<[unknown[], number]>(
      `UPDATE ${this.s}.deliveries d SET state = 'pending', attempts = 0, next_attempt_at = now()
         FROM ${this.s}.messages m
        WHERE d.endpoint_id = $1 AND m.id = d.webhook_id AND m.created_at >= $2
          AND (d.state = 'failed' OR (d.state = 'pending' AND d.attempts > 0))
       RETURNING 1`,
      [endpointId, since],
    );
    return rows[1];
  }

  /** D-56: attempts (and messages with nothing left to send) older than the retention go. */
  async prune(before: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${this.s}.attempts WHERE attempted_at < $1`, [before]);
    await this.dataSource.query(
      `DELETE FROM ${this.s}.messages m WHERE m.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM ${this.s}.deliveries d WHERE d.webhook_id = m.id AND d.state IN ('pending', 'sending'))`,
      [before],
    );
  }

  /** Per endpoint, the age of its oldest undelivered message (the metric's source). */
  async oldestPending(): Promise<Array<{ endpoint_id: string; seconds: number }>> {
    return this.dataSource.query(
      `SELECT d.endpoint_id, EXTRACT(EPOCH FROM now() - min(d.created_at))::float8 AS seconds
         FROM ${this.s}.deliveries d WHERE d.state IN ('pending', 'sending') GROUP BY d.endpoint_id`,
    );
  }
}
