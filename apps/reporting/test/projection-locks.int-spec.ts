import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import type { MemberV1 } from '@worktrack/contracts';
import { ProjectionRepository, type Positioned } from '../src/projection/projection.repository';
import { startReporting, type ReportingUnderTest } from './reporting-service';

const week = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };

/**
 * Two calls that write the same two members' facts and buckets at once, each
 * in the opposite member order, with both held in the middle of their writes
 * until the other one arrives there too (or 1 s passed): the interleaving in
 * which writes taken outside the members' locks wait on each other in a
 * circle (Postgres aborts one with 40P01). Every call takes its members'
 * locks, in key order, before its first write (ADR 0018), so the second one
 * waits for the first to commit and both succeed.
 */
describe('reporting projection: concurrent calls on the same members (ADR 0018)', () => {
  let app: NestFastifyApplication;
  let projection: ProjectionRepository;
  let db: DataSource;
  let reporting: ReportingUnderTest | undefined;
  const workspace = randomUUID();

  beforeAll(async () => {
    reporting = await startReporting('reporting_locks');
    app = reporting.app;
    projection = app.get(ProjectionRepository);
    db = app.get(DataSource);
  }, 120_000);

  afterAll(async () => {
    await reporting?.close();
  });

  /** Resolves once both parties arrived, or after `ms` (a party that cannot arrive: the other one goes on). */
  const barrier = (ms: number): (() => Promise<void>) => {
    let arrived = 0;
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return () => {
      if (++arrived === 2) open();
      return Promise.race([opened, new Promise<void>((resolve) => setTimeout(resolve, ms))]);
    };
  };
  const at = <T>(topic: string, offset: number, payload: T): Positioned<T> => ({ topic, partition: 0, offset: String(offset), payload });
  const member = (memberId: string, timezone: string, version: number): MemberV1 => ({
    memberId,
    workspaceId: workspace,
    kind: 'human',
    role: 'member',
    displayName: 'M',
    email: null,
    timezone,
    workingHours: week,
    plateCapacity: 6,
    version,
  });
  const events = (n: number, hour: string) =>
    Array.from({ length: n }, (_, i) => ({ eventId: randomUUID(), occurredAt: `2026-06-10T${hour}:0${i}:00.000Z` }));
  /** Per member: the events the day buckets count, and the events stored. */
  const counts = async (members: string[]) =>
    db.query<Array<{ member_id: string; bucketed: string; stored: string }>>(
      `SELECT m AS member_id,
              (SELECT COALESCE(sum(linked_event_count + outside_session_event_count), 0) FROM reporting.day_buckets WHERE member_id = m) AS bucketed,
              (SELECT count(*) FROM reporting.events WHERE member_id = m) AS stored
         FROM unnest($1::uuid[]) AS m ORDER BY 1`,
      [members],
    );

  it("a zone change of two members (their day buckets deleted) and their events, in the opposite order: no deadlock, every event in the new zone's days", async () => {
    const [x, y] = [randomUUID(), randomUUID()].sort();
    const membersTopic = `locks-members-${randomUUID()}`;
    const eventsTopic = `locks-events-${randomUUID()}`;
    // Both members in UTC with day buckets already.
    await projection.consume(
      [at(membersTopic, 0, member(x, 'UTC', 1)), at(membersTopic, 1, member(y, 'UTC', 1))],
      async (m, fresh) => (await Promise.all(fresh.map((f) => projection.member(m, f)))).flat(),
      (f) => f.memberId,
    );
    await projection.consume(
      [at(eventsTopic, 0, { memberId: x, events: events(2, '21') }), at(eventsTopic, 1, { memberId: y, events: events(2, '21') })],
      (m, fresh, consumed) =>
        projection.events(
          m,
          fresh.map((b) => ({ memberId: b.memberId, workspaceId: workspace, items: b.events })),
          consumed,
        ),
      (b) => b.memberId,
    );
    for (let round = 0; round < 3; round++) {
      const meet = barrier(1_000);
      const zone = round % 2 === 0 ? 'Europe/Berlin' : 'America/New_York';
      const zones: Array<Positioned<MemberV1>> = [
        at(membersTopic, 2 + 2 * round, member(x, zone, 2 + round)),
        at(membersTopic, 3 + 2 * round, member(y, zone, 2 + round)),
      ];
      const stored = [
        at(eventsTopic, 2 + 2 * round, { memberId: y, events: events(3, '22') }),
        at(eventsTopic, 3 + 2 * round, { memberId: x, events: events(3, '22') }),
      ];
      await Promise.all([
        projection.consume(
          zones,
          async (m, fresh) => {
            const touched = await projection.member(m, fresh[0]);
            await meet();
            return [...touched, ...(await projection.member(m, fresh[1]))];
          },
          (f) => f.memberId,
        ),
        projection.consume(
          stored,
          async (m, fresh, consumed) => {
            const touched = await projection.events(
              m,
              [{ memberId: fresh[0].memberId, workspaceId: workspace, items: fresh[0].events }],
              consumed,
            );
            await meet();
            return [
              ...touched,
              ...(await projection.events(m, [{ memberId: fresh[1].memberId, workspaceId: workspace, items: fresh[1].events }], consumed)),
            ];
          },
          (b) => b.memberId,
        ),
      ]);
      const rows = await counts([x, y]);
      expect(rows.map((r) => [r.bucketed, r.stored])).toEqual([
        [String(5 + 3 * round), String(5 + 3 * round)],
        [String(5 + 3 * round), String(5 + 3 * round)],
      ]);
    }
  }, 60_000);

  it('events stored and their links for two members, in the opposite order, the links first for one of them: no deadlock, every event linked once', async () => {
    const [x, y] = [randomUUID(), randomUUID()].sort();
    const eventsTopic = `locks-events-${randomUUID()}`;
    const linksTopic = `locks-links-${randomUUID()}`;
    const session = randomUUID();
    for (let round = 0; round < 3; round++) {
      const meet = barrier(1_000);
      const ofX = events(4, '10');
      const ofY = events(4, '10');
      const link = (memberId: string, evs: typeof ofX) => ({
        memberId,
        links: evs.map((e) => ({ eventId: e.eventId, sessionId: session, version: 1 })),
      });
      await Promise.all([
        projection.consume(
          [at(eventsTopic, 2 * round, { memberId: x, events: ofX }), at(eventsTopic, 2 * round + 1, { memberId: y, events: ofY })],
          async (m, fresh, consumed) => {
            const touched = await projection.events(
              m,
              [{ memberId: fresh[0].memberId, workspaceId: workspace, items: fresh[0].events }],
              consumed,
            );
            await meet();
            return [
              ...touched,
              ...(await projection.events(m, [{ memberId: fresh[1].memberId, workspaceId: workspace, items: fresh[1].events }], consumed)),
            ];
          },
          (b) => b.memberId,
        ),
        projection.consume(
          [at(linksTopic, 2 * round, link(y, ofY)), at(linksTopic, 2 * round + 1, link(x, ofX))],
          async (m, fresh, consumed) => {
            const touched = await projection.eventLinks(m, [fresh[0]], consumed);
            await meet();
            return [...touched, ...(await projection.eventLinks(m, [fresh[1]], consumed))];
          },
          (b) => b.memberId,
        ),
      ]);
    }
    const linked = await db.query<Array<{ member_id: string; n: string }>>(
      `SELECT member_id, count(*) AS n FROM reporting.events WHERE member_id = ANY($1::uuid[]) AND session_id = $2 AND occurred_at IS NOT NULL
        GROUP BY 1 ORDER BY 1`,
      [[x, y], session],
    );
    expect(linked.map((r) => [r.member_id, r.n])).toEqual([
      [x, '12'],
      [y, '12'],
    ]);
  }, 60_000);
});
