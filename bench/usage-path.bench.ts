/**
 * Benchmark (not a test): the usage path against the events path, hop by
 * hop, in one process, without the broker (D-45 … D-48, ADR 0017).
 *
 *   npm run bench:usage-path [-- --batches 200 --block 20]
 *
 * What bench:usage measures for the whole stack, taken apart so that each
 * hop's CPU is measured alone and without the noise of a shared broker:
 * the gateway's parse and rules (`parseUsageInput` / `parseActivityInput`),
 * the command as it travels (JSON text, then `parsePayload` on receipt),
 * ingestion's `ingest` (its statements on a real Postgres), the queued
 * outbox message as the relay reads and produces it, correlation's receipt
 * (`parsePayload`) and its link statement (`link_usage` / `link_events`),
 * and ingestion's application of the links. Needs a database migrated by a
 * stack run (bench:usage's, DATABASE_URL). Each kind runs in blocks of
 * `--block` batches, alternating, `--batches` of each in all; prints this
 * process's CPU and the two Postgres backends' CPU (from /proc) per batch,
 * per hop, and the bytes each message carries.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Pool } from 'pg';
import {
  EventsLinked,
  EventsStored,
  IngestEvents,
  IngestUsage,
  parsePayload,
  UsageLinked,
  UsageStored,
  type ActorV1,
} from '@worktrack/contracts';
import { parseActivityInput } from '../apps/gateway/src/activity/activity-input';
import { parseUsageInput } from '../apps/gateway/src/usage/usage-input';
import { EventsPublisher } from '../apps/ingestion/src/events/events.publisher';
import { EventsRepository } from '../apps/ingestion/src/events/events.repository';
import { EventsService } from '../apps/ingestion/src/events/events.service';
import { UsagePublisher } from '../apps/ingestion/src/usage/usage.publisher';
import { UsageRepository } from '../apps/ingestion/src/usage/usage.repository';
import { UsageService } from '../apps/ingestion/src/usage/usage.service';
import { LinksPublisher } from '../apps/correlation/src/links/links.publisher';
import { LinksRepository } from '../apps/correlation/src/links/links.repository';
import { LinksService } from '../apps/correlation/src/links/links.service';
import { BATCH, eventsBody, usageBody } from './usage-batches';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const BATCHES = arg('batches', 200);
const BLOCK = arg('block', 20);
/** `--only usage` (or `events`): one kind alone, for a CPU profile of this process (`node --cpu-prof`). */
const ONLY = ((i) => (i > 0 ? process.argv[i + 1] : undefined))(process.argv.indexOf('--only'));
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/worktrack';

/** A DataSource as the repositories use it: its schema, pg's pool for prepared statements, `query` for the rest. */
function dataSourceOf(pool: Pool, schema: string): never {
  return {
    options: { schema },
    driver: { master: pool },
    query: async (sql: string, params?: unknown[]): Promise<unknown[]> => (await pool.query(sql, params)).rows as unknown[],
    transaction: async (work: (m: { query: (sql: string, params?: unknown[]) => Promise<unknown[]> }) => Promise<unknown>) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await work({ query: async (sql, params) => (await client.query(sql, params)).rows as unknown[] });
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      } finally {
        client.release();
      }
    },
  } as never;
}

const ticks = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

type Hop = 'gateway' | 'command' | 'ingest' | 'relay' | 'correlation' | 'links';
const HOPS: Hop[] = ['gateway', 'command', 'ingest', 'relay', 'correlation', 'links'];

async function main(): Promise<void> {
  const ingestionPool = new Pool({ connectionString: databaseUrl, max: 1 });
  const correlationPool = new Pool({ connectionString: databaseUrl, max: 1 });
  const backend = async (p: Pool): Promise<number> => (await p.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const ingestionPid = await backend(ingestionPool);
  const correlationPid = await backend(correlationPool);
  const ingestionDs = dataSourceOf(ingestionPool, 'ingestion');
  const correlationDs = dataSourceOf(correlationPool, 'correlation');
  const events = new EventsService(new EventsRepository(ingestionDs), new EventsPublisher(), undefined as never);
  const usage = new UsageService(new UsageRepository(ingestionDs), new UsagePublisher(), undefined as never);
  const usageRepo = new UsageRepository(ingestionDs);
  const links = new LinksService(new LinksRepository(correlationDs), new LinksPublisher());

  const workspaceId = randomUUID();
  const memberId = randomUUID();
  const actor: ActorV1 = {
    memberId,
    workspaceId,
    scope: 'full',
    credential: 'api_token',
    profile: {
      memberId,
      workspaceId,
      role: 'owner',
      timezone: 'UTC',
      workingHours: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
      plateCapacity: 6,
      version: 1,
    },
  };
  await usageRepo.replacePrices(workspaceId, [
    { provider: 'anthropic', modelPattern: 'claude-*', effectiveFrom: '2025-01-01T00:00:00.000Z', input: '1', output: '5' },
    {
      provider: 'anthropic',
      modelPattern: 'claude-sonnet-*',
      effectiveFrom: '2025-01-01T00:00:00.000Z',
      input: '3',
      output: '15',
      cacheReadInput: '0.3',
    },
  ]);
  // A running session for the member in correlation's projection: every row gets linked.
  await correlationPool.query(
    `INSERT INTO correlation.sessions (session_id, member_id, started_at, closed_at, revision) VALUES ($1, $2, now() - interval '1 hour', NULL, 1)`,
    [randomUUID(), memberId],
  );

  const totals: Record<
    'events' | 'usage',
    { app: Record<Hop, number>; db: Record<Hop, number>; bytes: Record<string, number>; n: number }
  > = {
    events: { app: zero(), db: zero(), bytes: {}, n: 0 },
    usage: { app: zero(), db: zero(), bytes: {}, n: 0 },
  };
  function zero(): Record<Hop, number> {
    return Object.fromEntries(HOPS.map((h) => [h, 0])) as Record<Hop, number>;
  }
  let seq = 0;
  const outboxPayload = async (messageType: string): Promise<string> => {
    // As the relay reads the row and produces it (the jsonb's text as Postgres writes it).
    const rows = await ingestionPool.query<{ id: string; payload: string }>(
      // eslint-disable-next-line no-restricted-syntax -- the bench takes the queued row as the relay does, to measure that hop
      `DELETE FROM ingestion.outbox WHERE id = (SELECT max(id) FROM ingestion.outbox WHERE type = $1) RETURNING id, payload::text AS payload`,
      [messageType],
    );
    return rows.rows[0].payload;
  };
  const correlationOutbox = async (messageType: string): Promise<string[]> => {
    const rows = await correlationPool.query<{ payload: string }>(
      // eslint-disable-next-line no-restricted-syntax -- the bench takes the queued rows as the relay does, to measure that hop
      `DELETE FROM correlation.outbox WHERE type = $1 RETURNING payload::text AS payload`,
      [messageType],
    );
    return rows.rows.map((r) => r.payload);
  };

  const one = async (kind: 'events' | 'usage'): Promise<void> => {
    const t = totals[kind];
    const step = async (hop: Hop, work: () => Promise<void> | void): Promise<void> => {
      const a0 = cpuMs();
      const i0 = ticks(ingestionPid);
      const c0 = ticks(correlationPid);
      await work();
      t.app[hop] += cpuMs() - a0;
      t.db[hop] += ticks(ingestionPid) - i0 + ticks(correlationPid) - c0;
    };
    const bytes = (name: string, n: number): void => {
      t.bytes[name] = (t.bytes[name] ?? 0) + n;
    };
    const body = kind === 'events' ? eventsBody(seq) : usageBody(seq);
    seq++;
    bytes('http body', body.length);
    let commandText = '';
    let storedText = '';
    let linkedTexts: string[] = [];
    const receivedAt = new Date();
    await step('gateway', () => {
      const parsed = JSON.parse(body) as object;
      const payload =
        kind === 'events'
          ? { actor, receivedAt: receivedAt.toISOString(), events: parseActivityInput(parsed, receivedAt) }
          : { actor, receivedAt: receivedAt.toISOString(), usage: parseUsageInput(parsed, receivedAt) };
      commandText = JSON.stringify(payload);
      // The command client checks what it sends.
      if (kind === 'events') parsePayload(IngestEvents.payload, JSON.parse(commandText));
      else parsePayload(IngestUsage.payload, JSON.parse(commandText));
    });
    bytes('command', commandText.length);
    let command: unknown;
    await step('command', () => {
      command =
        kind === 'events'
          ? parsePayload(IngestEvents.payload, JSON.parse(commandText))
          : parsePayload(IngestUsage.payload, JSON.parse(commandText));
    });
    await step('ingest', async () => {
      const result =
        kind === 'events' ? await events.ingest(command as never, randomUUID()) : await usage.ingest(command as never, randomUUID());
      JSON.stringify(result); // the reply
    });
    await step('relay', async () => {
      storedText = await outboxPayload(kind === 'events' ? EventsStored.type : UsageStored.type);
    });
    bytes('stored message', storedText.length);
    await step('correlation', async () => {
      if (kind === 'events') await links.onEventsStoredMany([parsePayload(EventsStored.payload, JSON.parse(storedText))]);
      else await links.onUsageStoredMany([parsePayload(UsageStored.payload, JSON.parse(storedText))]);
      linkedTexts = await correlationOutbox(kind === 'events' ? EventsLinked.type : UsageLinked.type);
    });
    bytes(
      'linked messages',
      linkedTexts.reduce((a, s) => a + s.length, 0),
    );
    await step('links', async () => {
      if (kind === 'events') {
        const messages = linkedTexts.map((s) => parsePayload(EventsLinked.payload, JSON.parse(s)));
        await ingestionPool.query(
          `UPDATE ingestion.activity_events e SET session_id = t.sid, link_version = t.v
             FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[]) AS t(mid, id, sid, v)
            WHERE e.id = t.id AND e.member_id = t.mid AND e.link_version < t.v`,
          [
            messages.flatMap((m) => m.links.map(() => m.memberId)),
            messages.flatMap((m) => m.links.map((l) => l.eventId)),
            messages.flatMap((m) => m.links.map((l) => l.sessionId)),
            messages.flatMap((m) => m.links.map((l) => l.version)),
          ],
        );
      } else await usage.applyLinks(linkedTexts.map((s) => parsePayload(UsageLinked.payload, JSON.parse(s))));
    });
    t.n++;
  };

  // Warm-up of both, unmeasured.
  const kinds: ReadonlyArray<'events' | 'usage'> = ONLY === 'events' || ONLY === 'usage' ? [ONLY] : ['events', 'usage'];
  for (let i = 0; i < 20; i++) for (const kind of kinds) await one(kind);
  for (const k of ['events', 'usage'] as const) {
    totals[k] = { app: zero(), db: zero(), bytes: {}, n: 0 };
  }
  for (let done = 0; done < BATCHES; done += BLOCK) {
    const order = (done / BLOCK) % 2 === 0 ? (['events', 'usage'] as const) : (['usage', 'events'] as const);
    for (const kind of order) if (kinds.includes(kind)) for (let i = 0; i < BLOCK; i++) await one(kind);
  }

  if (kinds.length === 1) {
    await ingestionPool.end();
    await correlationPool.end();
    return;
  }
  console.log(`bench:usage-path: ${BATCHES} batches of ${BATCH} of each kind, blocks of ${BLOCK}, alternating (CPU ms per batch)`);
  console.log(
    `  ${'hop'.padEnd(12)} ${'events app'.padStart(10)} ${'events db'.padStart(10)} ${'usage app'.padStart(10)} ${'usage db'.padStart(10)}`,
  );
  let sums = { ea: 0, ed: 0, ua: 0, ud: 0 };
  for (const hop of HOPS) {
    const ea = totals.events.app[hop] / totals.events.n;
    const ed = totals.events.db[hop] / totals.events.n;
    const ua = totals.usage.app[hop] / totals.usage.n;
    const ud = totals.usage.db[hop] / totals.usage.n;
    sums = { ea: sums.ea + ea, ed: sums.ed + ed, ua: sums.ua + ua, ud: sums.ud + ud };
    console.log(
      `  ${hop.padEnd(12)} ${ea.toFixed(2).padStart(10)} ${ed.toFixed(2).padStart(10)} ${ua.toFixed(2).padStart(10)} ${ud.toFixed(2).padStart(10)}`,
    );
  }
  console.log(
    `  ${'TOTAL'.padEnd(12)} ${sums.ea.toFixed(2).padStart(10)} ${sums.ed.toFixed(2).padStart(10)} ${sums.ua.toFixed(2).padStart(10)} ${sums.ud.toFixed(2).padStart(10)}   events ${(sums.ea + sums.ed).toFixed(2)}, usage ${(sums.ua + sums.ud).toFixed(2)}, ratio ${((sums.ua + sums.ud) / (sums.ea + sums.ed)).toFixed(2)}`,
  );
  for (const name of Object.keys(totals.usage.bytes))
    console.log(
      `  bytes ${name.padEnd(16)} events ${(totals.events.bytes[name] / totals.events.n).toFixed(0).padStart(7)}  usage ${(totals.usage.bytes[name] / totals.usage.n).toFixed(0).padStart(7)}`,
    );
  await ingestionPool.end();
  await correlationPool.end();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
