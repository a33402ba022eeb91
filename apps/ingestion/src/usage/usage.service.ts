import { Injectable } from '@nestjs/common';
import {
  computeCost,
  ErrorCode,
  MAX_PAGE_BYTES,
  priceInForce,
  type CostSource,
  type IngestUsageResultV1,
  type IngestUsageV1,
  type ListUsageV1,
  type ModelPrice,
  type ModelPriceListV1,
  type PutModelPricesV1,
  type StoredUsageRefV1,
  type StoredUsageV1,
  type UsageLinkedV1,
  type UsagePageV1,
} from '@worktrack/contracts';
import { DomainError, SignedCursor, takeWithinBytes, TRANSIENT_MESSAGE, type CursorScope } from '@worktrack/platform';
import { eventId } from '../events/event-id';
import type { UsageRecordEntity } from './entities/usage-record.entity';
import { UsagePublisher } from './usage.publisher';
import { usageKey, UsageRepository, type NewUsageRow, type PriceSnapshot } from './usage.repository';

/** Reads of a price list replaced again and again while one batch is stored, before the batch gives up (a transient error). */
const MAX_PRICE_ATTEMPTS = 3;
/** Workspaces whose price list this process holds. */
const MAX_HELD_PRICE_LISTS = 10_000;

/**
 * D-45 … D-48: stores a member's usage batch all-or-nothing, deduplicates on
 * (member, provider, external_id) within the batch, across requests and
 * across concurrent requests (first write wins, D-46), computes a cost the
 * record did not report from the workspace's price list in force at its
 * `occurred_at` (once, at receipt, D-47), answers only after the commit
 * (D-20), and hands the new records to correlation and reports through the
 * outbox (UsageStored on `ingestion.usage`).
 */
@Injectable()
export class UsageService {
  /** Price lists by workspace, the longest held first out; each checked by the statement that uses it. */
  private readonly priceLists = new Map<string, PriceSnapshot>();

  constructor(
    private readonly usage: UsageRepository,
    private readonly publisher: UsagePublisher,
    private readonly cursors: SignedCursor,
  ) {}

  async ingest(command: IngestUsageV1, messageId: string): Promise<IngestUsageResultV1> {
    const { actor, usage, receivedAt } = command;
    const receivedAtMs = Date.parse(receivedAt);
    const ids: string[] = usage.map((_, i) => eventId(receivedAtMs, messageId, i));
    const firstOfKey = new Map<string, number>();
    let duplicates = 0;
    const fresh: Array<{ index: number; record: IngestUsageV1['usage'][number] }> = [];
    usage.forEach((record, index) => {
      const key = usageKey(record.provider, record.externalId);
      const first = firstOfKey.get(key);
      if (first !== undefined) {
        ids[index] = ids[first]; // D-46 as D-15: a duplicate within the batch holds the first one's id
        duplicates++;
        return;
      }
      firstOfKey.set(key, index);
      fresh.push({ index, record });
    });

    const { rows, inserted } = await this.store(actor, receivedAt, fresh, ids);
    // As for events: a row not inserted lost its D-46 key to an earlier (committed) write, whose id it
    // takes, or was stored by an earlier delivery of this same command (same id: nothing to do).
    const lost = rows.filter((r) => !inserted.has(r.id));
    if (lost.length > 0) {
      const existing = await this.usage.idsByKeys(
        actor.memberId,
        lost.map((r) => ({ provider: r.provider, externalId: r.externalId })),
      );
      for (const r of lost) {
        const id = existing.get(usageKey(r.provider, r.externalId));
        if (!id) throw new DomainError(ErrorCode.UNAVAILABLE, TRANSIENT_MESSAGE);
        if (id !== r.id) duplicates++;
        ids[r.index] = id;
      }
    }
    usage.forEach((r, i) => {
      ids[i] = ids[firstOfKey.get(usageKey(r.provider, r.externalId)) as number];
    });
    return { accepted: usage.length - duplicates, deduplicated: duplicates, usageIds: ids };
  }

  /**
   * Stores a batch's new records with their costs (D-47) computed from the
   * workspace's price list as this process holds it, which the storing
   * statement checks is the list in force (another replica may have
   * replaced it): else nothing is stored, and the list is read again. So
   * a batch reads the list once per change, not once per batch.
   */
  private async store(
    actor: IngestUsageV1['actor'],
    receivedAt: string,
    fresh: Array<{ index: number; record: IngestUsageV1['usage'][number] }>,
    ids: string[],
  ): Promise<{ rows: Array<NewUsageRow & { index: number }>; inserted: Set<string> }> {
    const priced = fresh.some((f) => f.record.cost === undefined && f.record.model !== undefined);
    for (let attempt = 1; ; attempt++) {
      const prices = priced ? await this.priceSnapshot(actor.workspaceId, attempt > 1) : undefined;
      const { refs, rows } = toRows(fresh, ids, prices?.prices ?? []);
      const { inserted, pricesCurrent } = await this.usage.insertBatchQueued(
        { memberId: actor.memberId, workspaceId: actor.workspaceId, receivedAt, rows },
        this.publisher.stored(actor, refs),
        prices?.digest ?? null,
      );
      if (pricesCurrent) return { rows, inserted };
      if (attempt === MAX_PRICE_ATTEMPTS) throw new DomainError(ErrorCode.UNAVAILABLE, TRANSIENT_MESSAGE);
    }
  }

  /** The workspace's price list as last read here, or read now (`reread`: the one held is not in force). */
  private async priceSnapshot(workspaceId: string, reread: boolean): Promise<PriceSnapshot> {
    const held = reread ? undefined : this.priceLists.get(workspaceId);
    if (held) return held;
    const snapshot = await this.usage.priceSnapshot(workspaceId);
    this.priceLists.delete(workspaceId);
    if (this.priceLists.size >= MAX_HELD_PRICE_LISTS) this.priceLists.delete(this.priceLists.keys().next().value as string);
    this.priceLists.set(workspaceId, snapshot);
    return snapshot;
  }

  async list(query: ListUsageV1): Promise<UsagePageV1> {
    const { actor, limit, cursor, ...filters } = query;
    const scope: CursorScope = { list: 'usage', owner: actor.memberId, filters };
    const before = cursor ? this.cursors.decode(cursor, scope) : undefined;
    const rows = await this.usage.page({
      memberId: actor.memberId,
      workspaceId: actor.workspaceId,
      ...filters,
      before: before ? { occurredAt: String(before[0]), id: String(before[1]) } : undefined,
      limit: limit + 1,
    });
    const usage = takeWithinBytes(rows.slice(0, limit).map(toStoredUsageV1), MAX_PAGE_BYTES, usageBytes);
    const last = usage[usage.length - 1];
    return {
      usage,
      nextCursor: rows.length > usage.length && last ? this.cursors.encode([last.occurredAt, last.usageId], scope) : null,
    };
  }

  /** Correlation's links (D-48): per record, only the newest version given counts. */
  async applyLinks(messages: UsageLinkedV1[]): Promise<void> {
    const newest = new Map<string, { memberId: string; usageId: string; sessionId: string | null; version: number }>();
    for (const { memberId, links } of messages) {
      for (const l of links) {
        const held = newest.get(l.usageId);
        if (!held || held.version < l.version)
          newest.set(l.usageId, { memberId, usageId: l.usageId, sessionId: l.sessionId ?? null, version: l.version });
      }
    }
    await this.usage.applyLinks([...newest.values()]);
  }

  async prices(workspaceId: string): Promise<ModelPriceListV1> {
    return { prices: (await this.usage.priceList(workspaceId)).map(presentPrice) };
  }

  /** D-47: the whole list replaced; a (provider, model_pattern, effective_from) given twice is a 400. */
  async replacePrices(command: PutModelPricesV1): Promise<ModelPriceListV1> {
    const seen = new Map<string, number>();
    const details: Array<{ path: string; issue: string }> = [];
    command.prices.forEach((p, i) => {
      const key = `${p.provider}\u0000${p.modelPattern}\u0000${Date.parse(p.effectiveFrom)}`;
      const first = seen.get(key);
      if (first !== undefined) {
        details.push({ path: `prices[${i}]`, issue: `the same provider, model_pattern and effective_from as prices[${first}]` });
      } else seen.set(key, i);
    });
    if (details.length > 0) throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The price list is invalid; nothing was changed.', details);
    await this.usage.replacePrices(command.actor.workspaceId, command.prices);
    this.priceLists.delete(command.actor.workspaceId);
    return this.prices(command.actor.workspaceId);
  }
}

/** A batch's new records as the message lists them (`refs`) and as the statement stores them, their costs from `prices` (D-47). */
function toRows(
  fresh: Array<{ index: number; record: IngestUsageV1['usage'][number] }>,
  ids: string[],
  prices: ModelPrice[],
): { refs: StoredUsageRefV1[]; rows: Array<NewUsageRow & { index: number }> } {
  const refs: StoredUsageRefV1[] = [];
  const rows = fresh.map(({ index, record: r }) => {
    const occurredAt = new Date(r.occurredAt).toISOString(); // millisecond precision, UTC
    const { cost, costSource } = costOf(r, occurredAt, prices);
    const ref: StoredUsageRefV1 = {
      usageId: ids[index],
      occurredAt,
      provider: r.provider,
      model: r.model ?? null,
      operation: r.operation,
      inputTokens: r.inputTokens ?? null,
      outputTokens: r.outputTokens ?? null,
      cacheReadInputTokens: r.cacheReadInputTokens ?? null,
      cacheCreationInputTokens: r.cacheCreationInputTokens ?? null,
      reasoningOutputTokens: r.reasoningOutputTokens ?? null,
      cost,
      currency: cost === null ? null : 'USD',
      costSource,
      sessionId: r.sessionId?.toLowerCase() ?? null,
    };
    refs.push(ref);
    return {
      index,
      id: ids[index],
      provider: r.provider,
      externalId: r.externalId,
      model: r.model ?? null,
      operation: r.operation,
      occurredAt,
      durationMs: r.durationMs ?? null,
      inputTokens: ref.inputTokens,
      outputTokens: ref.outputTokens,
      cacheReadInputTokens: ref.cacheReadInputTokens,
      cacheCreationInputTokens: ref.cacheCreationInputTokens,
      reasoningOutputTokens: ref.reasoningOutputTokens,
      cost,
      costSource,
      sessionId: ref.sessionId,
      conversationId: r.conversationId ?? null,
      toolName: r.toolName ?? null,
      attributes: r.attributes,
    };
  });
  return { refs, rows };
}

/** D-47: a reported cost as sent; else computed from the price in force; else none. */
function costOf(
  r: IngestUsageV1['usage'][number],
  occurredAt: string,
  prices: ModelPrice[],
): { cost: string | null; costSource: CostSource } {
  if (r.cost !== undefined) return { cost: r.cost.amount, costSource: 'reported' };
  const price = r.model === undefined ? undefined : priceInForce(prices, r.provider, r.model, occurredAt);
  if (!price) return { cost: null, costSource: 'none' };
  return { cost: computeCost(r, price), costSource: 'computed' };
}

const presentPrice = (p: ModelPrice): ModelPrice => ({
  provider: p.provider,
  modelPattern: p.modelPattern,
  effectiveFrom: p.effectiveFrom,
  input: p.input,
  output: p.output,
  cacheReadInput: p.cacheReadInput ?? null,
  cacheCreationInput: p.cacheCreationInput ?? null,
  reasoningOutput: p.reasoningOutput ?? null,
});

export const toStoredUsageV1 = (u: UsageRecordEntity): StoredUsageV1 => ({
  usageId: u.id,
  externalId: u.externalId,
  provider: u.provider,
  model: u.model,
  operation: u.operation,
  occurredAt: u.occurredAt.toISOString(),
  receivedAt: u.receivedAt.toISOString(),
  durationMs: u.durationMs,
  inputTokens: u.inputTokens,
  outputTokens: u.outputTokens,
  cacheReadInputTokens: u.cacheReadInputTokens,
  cacheCreationInputTokens: u.cacheCreationInputTokens,
  reasoningOutputTokens: u.reasoningOutputTokens,
  cost: u.cost === null ? null : { amount: u.cost, currency: 'USD' },
  costSource: u.costSource,
  sessionId: u.sessionId,
  conversationId: u.conversationId,
  toolName: u.toolName,
  attributes: u.attributes,
});

/** A record's share of a reply: its attributes as JSON plus its bounded strings, generously. */
const usageBytes = (u: StoredUsageV1): number =>
  Buffer.byteLength(JSON.stringify(u.attributes)) +
  Buffer.byteLength(u.externalId) +
  Buffer.byteLength(u.model ?? '') +
  Buffer.byteLength(u.conversationId ?? '') +
  Buffer.byteLength(u.toolName ?? '') +
  512;
