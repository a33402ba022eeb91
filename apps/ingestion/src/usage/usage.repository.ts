import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ModelPrice } from '@worktrack/contracts';
import { outboxNotifySql, queryPrepared, schemaOf } from '@worktrack/platform';
import { UsageRecordEntity } from './entities/usage-record.entity';
import type { QueuedUsageStored } from './usage.publisher';

export interface NewUsageRow {
  id: string;
  provider: string;
  externalId: string;
  model: string | null;
  operation: string;
  occurredAt: string;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadInputTokens: number | null;
  cacheCreationInputTokens: number | null;
  reasoningOutputTokens: number | null;
  cost: string | null;
  costSource: string;
  sessionId: string | null;
  conversationId: string | null;
  toolName: string | null;
  attributes: Record<string, unknown>;
}

export interface UsageQuery {
  memberId: string;
  workspaceId: string;
  from?: string;
  to?: string;
  sessionId?: string;
  provider?: string;
  model?: string;
  /** Keyset: rows strictly before (occurred_at, id). */
  before?: { occurredAt: string; id: string };
  limit: number;
}

interface UsageRow {
  id: string;
  provider: string;
  external_id: string;
  model: string | null;
  operation: string;
  occurred_at: Date;
  received_at: Date;
  duration_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
  reasoning_output_tokens: number | null;
  cost: string | null;
  currency: 'USD' | null;
  cost_source: 'reported' | 'computed' | 'none';
  conversation_id: string | null;
  tool_name: string | null;
  attributes: Record<string, unknown>;
  session_id: string | null;
}

/** A workspace's whole price list and its digest, as `insertBatchQueued` checks it. */
export interface PriceSnapshot {
  prices: ModelPrice[];
  digest: string;
}

interface PriceRow {
  provider: string;
  model_pattern: string;
  effective_from: Date;
  input: string;
  output: string;
  cache_read_input: string | null;
  cache_creation_input: string | null;
  reasoning_output: string | null;
}

/**
 * Usage records and price lists of the ingestion schema: one statement per
 * batch (its outbox message included), keyset reads; prices as NUMERIC text.
 * The statements of fixed text run prepared (ADR 0012, decision 14).
 */
@Injectable()
export class UsageRepository {
  private readonly table: string;
  private readonly prices: string;
  private insertText?: string;

  constructor(private readonly dataSource: DataSource) {
    const schema = schemaOf(dataSource);
    this.table = `"${schema}"."usage_records"`;
    this.prices = `"${schema}"."model_prices"`;
  }

  /**
   * Inserts a member's batch and, when any row is new, the UsageStored
   * message of the new rows into the outbox, in one statement (as
   * `EventsRepository.insertBatchQueued`: the message exists if and only if
   * the rows it names were stored; its INSERT is the publisher's, built from
   * the UsageStored contract: the batch's refs, given as one parameter, of
   * the rows in `fresh`, the ids inserted, in the batch's order; its commit
   * wakes the relay). Rows whose id
   * or D-46 key exists are skipped; a concurrent transaction holding the same
   * key makes this one wait for it, so the first write wins. Rows are
   * inserted in key order, so two batches holding the same keys in different
   * orders wait for each other instead of deadlocking. Returns the ids
   * actually inserted. `priceDigest`, when the batch's costs were computed
   * from a price list, is that list's digest (`priceSnapshot`): when the
   * workspace's list in the statement's snapshot is another one (replaced
   * meanwhile, by any replica), nothing is stored and `pricesCurrent` is
   * false.
   */
  async insertBatchQueued(
    batch: { memberId: string; workspaceId: string; receivedAt: string; rows: NewUsageRow[] },
    message: QueuedUsageStored,
    priceDigest: string | null,
  ): Promise<{ inserted: Set<string>; pricesCurrent: boolean }> {
    // The message's refs carry most columns (their JSON text is parameter $4, read here and kept whole in the
    // message); the rest of each row travels in $5, zipped with the refs by position.
    const rest = JSON.stringify(
      batch.rows.map((r) => ({
        externalId: r.externalId,
        durationMs: r.durationMs,
        conversationId: r.conversationId,
        toolName: r.toolName,
        attributes: r.attributes,
      })),
    );
    const rows = await queryPrepared<{ id: string | null; prices_current: boolean }>(
      this.dataSource,
      (this.insertText ??= this.insertStatement(message)),
      [
        batch.workspaceId,
        batch.memberId,
        batch.receivedAt,
        message.refsJson,
        rest,
        message.messageId,
        message.requestId,
        batch.memberId,
        batch.workspaceId,
        message.traceparent ?? null,
        priceDigest,
      ],
    );
    const inserted = new Set<string>();
    for (const r of rows) if (r.id !== null) inserted.add(r.id);
    return { inserted, pricesCurrent: rows.every((r) => r.prices_current) };
  }

  /**
   * The text of `insertBatchQueued`'s statement, with the message's INSERT
   * (`UsagePublisher`'s, the same text for every batch): built once, not
   * per batch (the prepared statement is found by its text).
   */
  private insertStatement(message: QueuedUsageStored): string {
    const schema = schemaOf(this.dataSource);
    const sql = `WITH price_check AS (
         SELECT CASE WHEN $11::text IS NULL THEN true
                     ELSE $11::text = (SELECT ${priceDigestSql} FROM ${this.prices} WHERE workspace_id = $1::uuid) END AS current
       ),
       input AS (
         SELECT * FROM ROWS FROM (jsonb_to_recordset($4::jsonb) AS ("usageId" uuid, provider text, model text, operation text,
                  "occurredAt" timestamptz, "inputTokens" int, "outputTokens" int, "cacheReadInputTokens" int,
                  "cacheCreationInputTokens" int, "reasoningOutputTokens" int, cost numeric, "costSource" text, "sessionId" uuid))
                  WITH ORDINALITY AS r(id, pr, mo, op, oc, it, ot, cr, cc, ro, co, cs, si, n)
           JOIN ROWS FROM (jsonb_to_recordset($5::jsonb) AS ("externalId" text, "durationMs" int, "conversationId" text,
                  "toolName" text, attributes jsonb))
                  WITH ORDINALITY AS x(ex, du, cv, tn, at, n) USING (n)
          WHERE (SELECT current FROM price_check)
       ),
       inserted AS (
         INSERT INTO ${this.table} (id, workspace_id, member_id, provider, external_id, model, operation, occurred_at, received_at,
                                    duration_ms, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens,
                                    reasoning_output_tokens, cost, currency, cost_source, session_id, session_named, conversation_id,
                                    tool_name, attributes)
         SELECT id, $1::uuid, $2::uuid, pr, ex, mo, op, oc, $3::timestamptz, du, it, ot, cr, cc, ro, co,
                CASE WHEN co IS NULL THEN NULL ELSE 'USD' END, cs, si, si IS NOT NULL, cv, tn, at
           FROM input ORDER BY pr, ex
         ON CONFLICT DO NOTHING
         RETURNING id
       ),
       fresh AS (SELECT id FROM inserted),
       queued AS (
         ${message.insertSql({ schema, messageId: '$6::uuid', requestId: '$7::text', memberId: '$8::text', workspaceId: '$9::text', refs: '$4::jsonb', traceparent: '$10::text' })}
       )
       SELECT f.id, p.current AS prices_current, (SELECT ${outboxNotifySql(schema)} FROM queued) AS notified
         FROM price_check p LEFT JOIN fresh f ON true`;
    return sql;
  }

  /** The stored ids of a member's D-46 keys. */
  async idsByKeys(memberId: string, keys: Array<{ provider: string; externalId: string }>): Promise<Map<string, string>> {
    const rows = await queryPrepared<{ id: string; provider: string; external_id: string }>(
      this.dataSource,
      `SELECT u.id, u.provider, u.external_id
         FROM ${this.table} u
         JOIN unnest($2::text[], $3::text[]) AS k(pr, ex) ON u.provider = k.pr AND u.external_id = k.ex
        WHERE u.member_id = $1::uuid`,
      [memberId, keys.map((k) => k.provider), keys.map((k) => k.externalId)],
    );
    return new Map(rows.map((r) => [usageKey(r.provider, r.external_id), r.id]));
  }

  /**
   * Applies correlation's links that are newer than the ones held, to records
   * that did not name their own session (D-48). One statement for the links
   * of several members.
   */
  async applyLinks(links: Array<{ memberId: string; usageId: string; sessionId: string | null; version: number }>): Promise<number> {
    const rows = await queryPrepared<{ id: string }>(
      this.dataSource,
      `UPDATE ${this.table} u SET session_id = t.sid, link_version = t.v
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[]) AS t(mid, id, sid, v)
        WHERE u.id = t.id AND u.member_id = t.mid AND u.link_version < t.v AND NOT u.session_named
       RETURNING u.id`,
      [links.map((l) => l.memberId), links.map((l) => l.usageId), links.map((l) => l.sessionId), links.map((l) => l.version)],
    );
    return rows.length;
  }

  async page(q: UsageQuery): Promise<UsageRecordEntity[]> {
    const where = ['member_id = $1', 'workspace_id = $2'];
    const params: unknown[] = [q.memberId, q.workspaceId];
    const add = (sql: (n: number) => string, value: unknown): void => {
      params.push(value);
      where.push(sql(params.length));
    };
    if (q.from) add((n) => `occurred_at >= $${n}::timestamptz`, q.from);
    if (q.to) add((n) => `occurred_at < $${n}::timestamptz`, q.to);
    if (q.sessionId) add((n) => `session_id = $${n}::uuid`, q.sessionId);
    if (q.provider) add((n) => `provider = $${n}`, q.provider);
    if (q.model) add((n) => `model = $${n}`, q.model);
    if (q.before) {
      params.push(q.before.occurredAt, q.before.id);
      where.push(`(occurred_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(q.limit);
    const rows = await this.dataSource.query<UsageRow[]>(
      `SELECT id, provider, external_id, model, operation, occurred_at, received_at, duration_ms, input_tokens, output_tokens,
              cache_read_input_tokens, cache_creation_input_tokens, reasoning_output_tokens, cost::text AS cost, currency, cost_source,
              conversation_id, tool_name, attributes, session_id
         FROM ${this.table}
        WHERE ${where.join(' AND ')}
        ORDER BY occurred_at DESC, id DESC
        LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) =>
      Object.assign(new UsageRecordEntity(), {
        id: r.id,
        provider: r.provider,
        externalId: r.external_id,
        model: r.model,
        operation: r.operation,
        occurredAt: r.occurred_at,
        receivedAt: r.received_at,
        durationMs: r.duration_ms,
        inputTokens: r.input_tokens,
        outputTokens: r.output_tokens,
        cacheReadInputTokens: r.cache_read_input_tokens,
        cacheCreationInputTokens: r.cache_creation_input_tokens,
        reasoningOutputTokens: r.reasoning_output_tokens,
        cost: r.cost,
        currency: r.currency,
        costSource: r.cost_source,
        conversationId: r.conversation_id,
        toolName: r.tool_name,
        attributes: r.attributes,
        sessionId: r.session_id,
      }),
    );
  }

  /**
   * The workspace's whole price list (D-47) and its digest, read in one
   * statement (one snapshot): what a batch's costs are computed from, and
   * what `insertBatchQueued` checks is still the list in force.
   */
  async priceSnapshot(workspaceId: string): Promise<PriceSnapshot> {
    const rows = await queryPrepared<{ digest: string } & { [K in keyof PriceRow]: PriceRow[K] | null }>(
      this.dataSource,
      `SELECT d.digest, p.provider, p.model_pattern, p.effective_from, p.input::text AS input, p.output::text AS output,
              p.cache_read_input::text AS cache_read_input, p.cache_creation_input::text AS cache_creation_input,
              p.reasoning_output::text AS reasoning_output
         FROM (SELECT ${priceDigestSql} AS digest FROM ${this.prices} WHERE workspace_id = $1::uuid) d
         LEFT JOIN ${this.prices} p ON p.workspace_id = $1::uuid
        ORDER BY p.provider, p.model_pattern, p.effective_from`,
      [workspaceId],
    );
    // One row with only the digest when the list is empty.
    return { digest: rows[0].digest, prices: rows.flatMap((r) => (r.provider === null ? [] : [toModelPrice(r as PriceRow)])) };
  }

  /** The workspace's price list (D-47), of some providers or all, as decimal text. */
  async priceList(workspaceId: string, providers?: string[]): Promise<ModelPrice[]> {
    const rows = await queryPrepared<PriceRow>(
      this.dataSource,
      `SELECT provider, model_pattern, effective_from, input::text AS input, output::text AS output,
              cache_read_input::text AS cache_read_input, cache_creation_input::text AS cache_creation_input,
              reasoning_output::text AS reasoning_output
         FROM ${this.prices}
        WHERE workspace_id = $1::uuid AND ($2::text[] IS NULL OR provider = ANY($2::text[]))
        ORDER BY provider, model_pattern, effective_from`,
      [workspaceId, providers ?? null],
    );
    return rows.map(toModelPrice);
  }

  /** D-47: replaces the workspace's whole list in one transaction. */
  async replacePrices(workspaceId: string, prices: ModelPrice[]): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.query(`DELETE FROM ${this.prices} WHERE workspace_id = $1::uuid`, [workspaceId]);
      if (prices.length === 0) return;
      const col = <K extends keyof ModelPrice>(k: K): unknown[] => prices.map((p) => p[k] ?? null);
      await m.query(
        `INSERT INTO ${this.prices} (workspace_id, provider, model_pattern, effective_from, input, output, cache_read_input,
                                     cache_creation_input, reasoning_output)
         SELECT $1::uuid, pr, mp, ef, i::numeric, o::numeric, cr::numeric, cc::numeric, ro::numeric
           FROM unnest($2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
                AS t(pr, mp, ef, i, o, cr, cc, ro)`,
        [
          workspaceId,
          col('provider'),
          col('modelPattern'),
          col('effectiveFrom'),
          col('input'),
          col('output'),
          col('cacheReadInput'),
          col('cacheCreationInput'),
          col('reasoningOutput'),
        ],
      );
    });
  }
}

const toModelPrice = (r: PriceRow): ModelPrice => ({
  provider: r.provider,
  modelPattern: r.model_pattern,
  effectiveFrom: r.effective_from.toISOString(),
  input: r.input,
  output: r.output,
  cacheReadInput: r.cache_read_input,
  cacheCreationInput: r.cache_creation_input,
  reasoningOutput: r.reasoning_output,
});

/**
 * A price list's digest, an aggregate over its rows (`model_prices`, one
 * workspace's): every column, in key order, as text that does not depend
 * on the session's settings (instants as epoch seconds, NULL apart from any
 * value in a row's text).
 */
const priceDigestSql = `md5(coalesce(string_agg(ROW(provider, model_pattern, extract(epoch FROM effective_from), input, output,
  cache_read_input, cache_creation_input, reasoning_output)::text, ';' ORDER BY provider, model_pattern, effective_from), ''))`;

export const usageKey = (provider: string, externalId: string): string => `${provider}\u0000${externalId}`;
