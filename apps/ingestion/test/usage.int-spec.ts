import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  IngestUsage,
  ListUsage,
  PutModelPrices,
  UsageLinked,
  UsageStored,
  type ActorV1,
  type UsageInputV1,
  type UsageStoredV1,
} from '@worktrack/contracts';
import { DataSource } from 'typeorm';
import { CommandClient, schemaOf, startService, type RunningConsumer } from '@worktrack/platform';
import { eventually, MessagePublisher, readTopic, testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { IngestionConfig } from '../src/ingestion.config';
import { IngestionAppModule } from '../src/app.module';

const actorOf = (): ActorV1 => ({ memberId: randomUUID(), workspaceId: randomUUID(), scope: 'full', credential: 'api_token' });
const record = (over: Partial<UsageInputV1> = {}): UsageInputV1 => ({
  externalId: randomUUID(),
  provider: 'anthropic',
  model: 'claude-sonnet-4',
  operation: 'chat',
  occurredAt: '2026-11-20T10:00:00.000Z',
  inputTokens: 1_000,
  outputTokens: 200,
  attributes: { team: 'a' },
  ...over,
});

/**
 * Usage records (D-45 … D-48) through ingestion's real command topic, Postgres
 * and outbox: the UsageStored row the storing statement writes is built from
 * the contract (the spec file fails on a row that does not match it).
 */
describe('ingestion: usage records', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let rpc: CommandClient;
  let reader: RunningConsumer;
  const stored: UsageStoredV1[] = [];

  beforeAll(async () => {
    app = await startService('ingestion', IngestionAppModule, testConfig(IngestionConfig));
    kafka = testKafka('ingestion-usage-it');
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 10_000 });
    await rpc.start();
    reader = await readTopic(kafka.client, UsageStored, ({ payload }) => stored.push(payload));
  });

  afterAll(async () => {
    await reader?.stop();
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
  });

  it('announces the new records of a batch once, every field as stored, and applies correlation links to the unnamed ones only (D-48)', async () => {
    const actor = actorOf();
    const named = randomUUID();
    const batch = [
      record({ cost: { amount: '0.10', currency: 'USD' }, occurredAt: '2026-11-20T10:00:00Z' }),
      record({ model: undefined, inputTokens: undefined, outputTokens: undefined, sessionId: named.toUpperCase() }),
      record({ cacheReadInputTokens: 400, reasoningOutputTokens: 50, toolName: 'grep', conversationId: 'c-1' }),
    ];
    const ingest = () =>
      rpc.send(IngestUsage, { actor, receivedAt: new Date().toISOString(), usage: [...batch, batch[0]] }, { key: actor.memberId });
    const result = await ingest();
    expect(result).toMatchObject({ accepted: 3, deduplicated: 1 });
    const [first, second, third] = result.usageIds;
    expect(result.usageIds[3]).toBe(first);
    await eventually(() => stored.some((s) => s.memberId === actor.memberId), 'the UsageStored message');
    const base = { provider: 'anthropic', operation: 'chat', cacheCreationInputTokens: null };
    expect(stored.filter((s) => s.memberId === actor.memberId)).toEqual([
      {
        memberId: actor.memberId,
        workspaceId: actor.workspaceId,
        usage: [
          {
            ...base,
            usageId: first,
            occurredAt: '2026-11-20T10:00:00.000Z',
            model: 'claude-sonnet-4',
            inputTokens: 1_000,
            outputTokens: 200,
            cacheReadInputTokens: null,
            reasoningOutputTokens: null,
            cost: '0.10',
            currency: 'USD',
            costSource: 'reported',
            sessionId: null,
          },
          {
            ...base,
            usageId: second,
            occurredAt: '2026-11-20T10:00:00.000Z',
            model: null,
            inputTokens: null,
            outputTokens: null,
            cacheReadInputTokens: null,
            reasoningOutputTokens: null,
            cost: null,
            currency: null,
            costSource: 'none',
            sessionId: named,
          },
          {
            ...base,
            usageId: third,
            occurredAt: '2026-11-20T10:00:00.000Z',
            model: 'claude-sonnet-4',
            inputTokens: 1_000,
            outputTokens: 200,
            cacheReadInputTokens: 400,
            reasoningOutputTokens: 50,
            cost: null,
            currency: null,
            costSource: 'none',
            sessionId: null,
          },
        ],
      },
    ]);

    // The same batch again stores nothing and announces nothing.
    expect(await ingest()).toMatchObject({ accepted: 0, deduplicated: 4, usageIds: result.usageIds });

    // Correlation's links: newest version wins, a record that named its session keeps it.
    const session = randomUUID();
    const publisher = new MessagePublisher(kafka.client);
    await publisher.publish(
      UsageLinked,
      {
        memberId: actor.memberId,
        links: [
          { usageId: first, sessionId: session, version: 1 },
          { usageId: second, sessionId: session, version: 1 },
        ],
      },
      { key: actor.memberId },
    );
    const sessionsOf = async () => {
      const page = await rpc.send(ListUsage, { actor, limit: 10 }, { key: actor.memberId });
      return Object.fromEntries(page.usage.map((u) => [u.usageId, u.sessionId]));
    };
    await eventually(async () => (await sessionsOf())[first] === session, 'the link applied');
    expect(await sessionsOf()).toEqual({ [first]: session, [second]: named, [third]: null });
    expect(stored.filter((s) => s.memberId === actor.memberId)).toHaveLength(1);
  });

  it('announces only the records a batch stored: one stored before keeps its id and is not repeated (D-46, D-48)', async () => {
    const actor = actorOf();
    const old = record({ occurredAt: '2026-11-20T09:00:00.000Z' });
    const send = (usage: UsageInputV1[]) =>
      rpc.send(IngestUsage, { actor, receivedAt: new Date().toISOString(), usage }, { key: actor.memberId });
    const [oldId] = (await send([old])).usageIds;
    const fresh = [record({ occurredAt: '2026-11-20T09:01:00.000Z' }), record({ occurredAt: '2026-11-20T09:02:00.000Z' })];
    const result = await send([fresh[0], old, fresh[1]]);
    expect(result).toMatchObject({ accepted: 2, deduplicated: 1 });
    expect(result.usageIds[1]).toBe(oldId);
    await eventually(() => stored.filter((s) => s.memberId === actor.memberId).length === 2, 'both UsageStored messages');
    const [, second] = stored.filter((s) => s.memberId === actor.memberId);
    expect(second.usage.map((u) => [u.usageId, u.occurredAt])).toEqual([
      [result.usageIds[0], '2026-11-20T09:01:00.000Z'],
      [result.usageIds[2], '2026-11-20T09:02:00.000Z'],
    ]);
  });

  it("keeps a record's link update on its page, so no index of the table gets a new entry (ADR 0017)", async () => {
    const actor = actorOf();
    // A batch of the API's limit, with attributes of about a kilobyte: its rows fill pages.
    const usage = Array.from({ length: 100 }, (_, i) =>
      record({ occurredAt: `2026-11-20T11:${String(i % 60).padStart(2, '0')}:00.000Z`, attributes: { step: i, note: 'x'.repeat(1_000) } }),
    );
    const { usageIds } = await rpc.send(IngestUsage, { actor, receivedAt: new Date().toISOString(), usage }, { key: actor.memberId });
    const db = app.get(DataSource);
    const table = `"${schemaOf(db)}"."usage_records"`;
    const pages = async (): Promise<Map<string, { page: string; linked: boolean }>> => {
      const rows = await db.query<Array<{ id: string; ctid: string; linked: boolean }>>(
        `SELECT id, ctid::text AS ctid, session_id IS NOT NULL AS linked FROM ${table} WHERE member_id = $1`,
        [actor.memberId],
      );
      return new Map(rows.map((r) => [r.id, { page: r.ctid.replace(/^\((\d+),\d+\)$/, '$1'), linked: r.linked }]));
    };
    const before = await pages();
    expect(new Set([...before.values()].map((r) => r.page)).size).toBeGreaterThan(10);
    await new MessagePublisher(kafka.client).publish(
      UsageLinked,
      { memberId: actor.memberId, links: usageIds.map((usageId) => ({ usageId, sessionId: randomUUID(), version: 1 })) },
      { key: actor.memberId },
    );
    await eventually(async () => [...(await pages()).values()].every((r) => r.linked), 'every link applied');
    const after = await pages();
    for (const id of usageIds) expect([id, after.get(id)?.page]).toEqual([id, before.get(id)?.page]);
  });

  it('computes costs from the price list in force when another replica replaced the one held here (D-47)', async () => {
    const actor = actorOf();
    const send = (usage: UsageInputV1[]) =>
      rpc.send(IngestUsage, { actor, receivedAt: new Date().toISOString(), usage }, { key: actor.memberId });
    await rpc.send(
      PutModelPrices,
      {
        actor,
        prices: [{ provider: 'anthropic', modelPattern: 'claude-*', effectiveFrom: '2025-01-01T00:00:00Z', input: '1', output: '5' }],
      },
      { key: actor.workspaceId },
    );
    const [first] = (await send([record()])).usageIds;
    // Another replica's PUT: the rows change under this process, which held the list it read for the first batch.
    const dataSource = app.get(DataSource);
    await dataSource.query(`UPDATE "${schemaOf(dataSource)}"."model_prices" SET input = 2 WHERE workspace_id = $1`, [actor.workspaceId]);
    const [second] = (await send([record()])).usageIds;
    await dataSource.query(`DELETE FROM "${schemaOf(dataSource)}"."model_prices" WHERE workspace_id = $1`, [actor.workspaceId]);
    const [third] = (await send([record()])).usageIds;
    const page = await rpc.send(ListUsage, { actor, limit: 10 }, { key: actor.memberId });
    const costs = Object.fromEntries(page.usage.map((u) => [u.usageId, [u.cost?.amount ?? null, u.costSource]]));
    expect(costs).toEqual({
      [first]: ['0.002000000', 'computed'],
      [second]: ['0.003000000', 'computed'],
      [third]: [null, 'none'],
    });
  });
});
