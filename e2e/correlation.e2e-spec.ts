import { Client } from 'pg';
import { EventsStored, SessionChanged } from '@worktrack/contracts';
import {
  expectedLinks,
  MessagePublisher,
  prng,
  scenario,
  shuffle,
  startAppProcess,
  testKafka,
  type AppProcess,
  type Scenario,
  type TestKafka,
} from '@worktrack/testing';

/**
 * Fault test: the correlation worker is killed with SIGKILL in the
 * middle of a stream and restarted; every event ends correctly linked, none
 * lost, none twice. The oracle reads correlation's table directly.
 */
describe('correlation survives kill -9 mid-stream', () => {
  let correlation: AppProcess | undefined;
  let kafka: TestKafka;
  let db: Client;

  beforeAll(async () => {
    kafka = testKafka('correlation-fault');
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await correlation?.stop();
    await kafka.close();
    await db.end();
  });

  it('links every event right after a SIGKILL and a restart under load', async () => {
    const seed = Number(process.env.CORRELATION_SEED ?? Date.now() % 1_000_000);
    const rand = prng(seed);
    const scenarios: Scenario[] = Array.from({ length: 40 }, () => scenario(rand));
    const publisher = new MessagePublisher(kafka.client);
    const sends: Array<() => Promise<void>> = [];
    for (const s of scenarios) {
      for (let i = 0; i < s.events.length; i += 5) {
        const events = s.events.slice(i, i + 5);
        sends.push(() =>
          publisher.publish(EventsStored, { memberId: s.memberId, workspaceId: s.workspaceId, events }, { key: s.memberId }),
        );
      }
      for (const change of s.changes) sends.push(() => publisher.publish(SessionChanged, change, { key: s.memberId }));
    }
    const ordered = shuffle(sends, rand);

    correlation = await startAppProcess('correlation');
    let killedAt = -1;
    for (const [i, send] of ordered.entries()) {
      await send();
      if (i === Math.floor(ordered.length / 3)) {
        // Mid-stream, with messages in flight: no drain, no commit.
        correlation.child.kill('SIGKILL');
        expect(await correlation.exited).toBe('SIGKILL');
        killedAt = i;
      }
      if (i === Math.floor(ordered.length / 2)) correlation = await startAppProcess('correlation');
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    expect(killedAt).toBeGreaterThan(0);

    const expected = new Map<string, string | null>();
    for (const s of scenarios) for (const [k, v] of expectedLinks(s)) expected.set(k, v);
    const members = scenarios.map((s) => s.memberId);
    const read = async (): Promise<Array<{ event_id: string; session_id: string | null }>> =>
      (
        await db.query<{ event_id: string; session_id: string | null }>(
          'SELECT event_id, session_id FROM correlation.events WHERE member_id = ANY($1::uuid[])',
          [members],
        )
      ).rows;
    const deadline = Date.now() + 60_000;
    let rows = await read();
    const wrong = (): string[] => rows.filter((r) => expected.get(r.event_id) !== r.session_id).map((r) => r.event_id);
    while ((rows.length !== expected.size || wrong().length > 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      rows = await read();
    }
    expect({ seed, stored: rows.length }).toEqual({ seed, stored: expected.size }); // none lost, none twice (event_id is the key)
    expect({ seed, wrong: wrong() }).toEqual({ seed, wrong: [] });
  });
});
