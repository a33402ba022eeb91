import { randomUUID } from 'node:crypto';
import { ErrorCode, type IngestUsageV1, type ModelPrice } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { UsagePublisher } from './usage.publisher';
import type { NewUsageRow, PriceSnapshot, UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

const price = (input: string): ModelPrice => ({
  provider: 'anthropic',
  modelPattern: 'claude-*',
  effectiveFrom: '2025-01-01T00:00:00.000Z',
  input,
  output: '5',
});

/** A repository whose insert finds the list in force only when given `current`'s digest (D-47). */
function repositoryWith(snapshots: PriceSnapshot[], current: () => string) {
  const reads: string[] = [];
  const inserts: Array<{ digest: string | null; costs: Array<string | null> }> = [];
  const repository = {
    priceSnapshot: (workspaceId: string) => {
      reads.push(workspaceId);
      return Promise.resolve(snapshots[Math.min(reads.length, snapshots.length) - 1]);
    },
    insertBatchQueued: (batch: { rows: NewUsageRow[] }, _message: unknown, digest: string | null) => {
      inserts.push({ digest, costs: batch.rows.map((r) => r.cost) });
      const pricesCurrent = digest === null || digest === current();
      return Promise.resolve({ inserted: new Set(pricesCurrent ? batch.rows.map((r) => r.id) : []), pricesCurrent });
    },
  };
  return { repository: repository as unknown as UsageRepository, reads, inserts };
}

const command = (usage: IngestUsageV1['usage']): IngestUsageV1 => ({
  actor: { memberId: randomUUID(), workspaceId: randomUUID(), scope: 'full', credential: 'api_token' },
  receivedAt: '2026-11-27T10:00:00.000Z',
  usage,
});
const tokens = (over: Partial<IngestUsageV1['usage'][number]> = {}): IngestUsageV1['usage'][number] => ({
  externalId: randomUUID(),
  provider: 'anthropic',
  model: 'claude-sonnet-4',
  operation: 'chat',
  occurredAt: '2026-11-20T10:00:00.000Z',
  inputTokens: 1_000,
  outputTokens: 200,
  attributes: {},
  ...over,
});

describe('UsageService.ingest: the price list held (D-47)', () => {
  it('reads a workspace list once and prices the next batches from it while the statement finds it in force', async () => {
    const { repository, reads, inserts } = repositoryWith([{ prices: [price('1')], digest: 'a' }], () => 'a');
    const service = new UsageService(repository, new UsagePublisher(), undefined as never);
    const first = command([tokens()]);
    await service.ingest(first, randomUUID());
    await service.ingest({ ...first, usage: [tokens()] }, randomUUID());
    expect(reads).toHaveLength(1);
    expect(inserts).toEqual([
      { digest: 'a', costs: ['0.002000000'] },
      { digest: 'a', costs: ['0.002000000'] },
    ]);
  });

  it('reads the list again and prices the batch anew when the statement finds another one in force', async () => {
    const { repository, reads, inserts } = repositoryWith(
      [
        { prices: [price('1')], digest: 'a' },
        { prices: [price('2')], digest: 'b' },
      ],
      () => 'b',
    );
    const service = new UsageService(repository, new UsagePublisher(), undefined as never);
    const result = await service.ingest(command([tokens()]), randomUUID());
    expect(result).toMatchObject({ accepted: 1, deduplicated: 0 });
    expect(reads).toHaveLength(2);
    expect(inserts).toEqual([
      { digest: 'a', costs: ['0.002000000'] },
      { digest: 'b', costs: ['0.003000000'] },
    ]);
  });

  it('gives up with a transient error when the list keeps changing', async () => {
    let version = 0;
    const { repository, inserts } = repositoryWith([{ prices: [price('1')], digest: 'a' }], () => `changed ${++version}`);
    const service = new UsageService(repository, new UsagePublisher(), undefined as never);
    const failure = await service.ingest(command([tokens()]), randomUUID()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DomainError);
    expect((failure as DomainError).code).toBe(ErrorCode.UNAVAILABLE);
    expect(inserts).toHaveLength(3);
  });

  it('reads no list for a batch whose costs are all reported, and asks the statement for no check', async () => {
    const { repository, reads, inserts } = repositoryWith([], () => 'a');
    const service = new UsageService(repository, new UsagePublisher(), undefined as never);
    await service.ingest(command([tokens({ cost: { amount: '0.5', currency: 'USD' } })]), randomUUID());
    expect(reads).toHaveLength(0);
    expect(inserts).toEqual([{ digest: null, costs: ['0.5'] }]);
  });
});
