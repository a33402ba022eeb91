import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { DateTime } from 'luxon';
import { Client } from 'pg';
import { parse } from 'yaml';
import { mainOf, memberWithToken, repoRoot, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody, type Reply } from './http';

const JWT_SECRET = `e2e-${randomUUID()}`;
const run = randomUUID().slice(0, 8);

interface MemberBody {
  member_id: string;
  workspace_id: string;
  role: string;
  display_name: string;
  timezone: string;
  working_hours: Record<string, Array<{ start: string; end: string }>>;
  plate_capacity: number;
  active?: boolean;
}
interface SessionBody {
  session_id: string;
  started_at: string;
}
interface Assignment {
  plate_item_id: string;
  assignee_id: string;
  plate_date: string;
  overflowed: boolean;
  active_count: number;
  capacity: number;
}
interface PlateDay {
  date: string;
  capacity: number;
  active_count: number;
  items: Array<{ plate_item_id: string }>;
}

const sign = (sub: string, wid: string): string => jwt.sign({ sub, wid }, JWT_SECRET, { algorithm: 'HS256', expiresIn: 600 });
const NO_HOURS = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
const ALL_WEEK = Object.fromEntries(Object.keys(NO_HOURS).map((d) => [d, [{ start: '09:00', end: '17:00' }]]));

/**
 * Members over HTTP: two gateway replicas (one JWT secret), identity,
 * sessions, plate and ingestion as processes. Credentials resolve to active
 * members of their workspace; a member is usable everywhere the moment it is
 * created; profile changes and deactivation reach every route.
 */
describe('members end to end', () => {
  let identity: AppProcess;
  let sessions: AppProcess;
  let plate: AppProcess;
  let ingestion: AppProcess;
  let g1: AppProcess;
  let g2: AppProcess;
  let owner: MemberWithToken; // workspace A, Asia/Tokyo
  let teammate: MemberWithToken; // workspace A
  let stranger: MemberWithToken; // workspace B
  let db: Client; // the run's database, read directly only to see what the services store

  const on = (g: AppProcess) => ({
    get: <T>(token: string, path: string) => call<{ data: T } & ErrorBody>(g.url, 'GET', path, { token }),
    post: <T>(token: string, path: string, body?: unknown) => call<{ data: T } & ErrorBody>(g.url, 'POST', path, { token, body }),
    patch: <T>(token: string, path: string, body?: unknown) => call<{ data: T } & ErrorBody>(g.url, 'PATCH', path, { token, body }),
  });
  const tokyoDay = (days = 0): string => DateTime.now().setZone('Asia/Tokyo').plus({ days }).toISODate()!;
  /** A finished half hour at 00:30 local time of `day` in `zone`: in UTC it lies on the day before (east of UTC). */
  const manualAt = (day: string, zone: string) => {
    const start = DateTime.fromISO(`${day}T00:30:00`, { zone });
    return { intent_text: 'early', source: 'manual', started_at: start.toISO(), ended_at: start.plus({ minutes: 30 }).toISO() };
  };
  const writes = (token: string, g: AppProcess, assigneeId: string): Array<Promise<Reply<unknown>>> => [
    on(g).post(token, '/v1/sessions', { intent_text: 'x', source: 'timer' }),
    on(g).post(token, '/v1/activity/events', { events: [{ event_type: 'deploy', source_type: 'ci', external_id: randomUUID() }] }),
    on(g).post(token, '/v1/plate/assign', { assignee_id: assigneeId, title: 'x' }),
  ];

  beforeAll(async () => {
    // One after another: six processes starting at once on a busy machine miss the readiness bound.
    identity = await startAppProcess('identity', {}, 90_000);
    sessions = await startAppProcess('sessions', {}, 90_000);
    plate = await startAppProcess('plate', {}, 90_000);
    ingestion = await startAppProcess('ingestion', {}, 90_000);
    g1 = await startAppProcess('gateway', { JWT_SECRET }, 90_000);
    g2 = await startAppProcess('gateway', { JWT_SECRET }, 90_000);
    owner = memberWithToken({ workspace: `mem-A-${run}`, email: `owner-${run}@example.com`, timezone: 'Asia/Tokyo' });
    teammate = memberWithToken({ workspace: `mem-A-${run}`, email: `mate-${run}@example.com`, timezone: 'Asia/Tokyo' });
    stranger = memberWithToken({ workspace: `mem-B-${run}`, email: `stranger-${run}@example.com` });
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  }, 600_000);

  afterAll(async () => {
    await db?.end();
    await Promise.all([g1, g2, ingestion, plate, sessions, identity].filter(Boolean).map((p) => p.stop()));
  });

  describe('a signed JWT is trusted only for a member that exists in that workspace', () => {
    it('refuses a JWT naming a real member with another workspace (or a random one) on every write, and acts on nothing', async () => {
      for (const wid of [stranger.workspaceId, randomUUID()]) {
        const crossed = sign(owner.memberId, wid);
        for (const g of [g1, g2]) {
          const replies = await Promise.all([...writes(crossed, g, owner.memberId), on(g).get(crossed, '/v1/sessions')]);
          expect(replies.map((r) => [r.status, (r.body as ErrorBody).error.code])).toEqual(
            Array.from({ length: 4 }, () => [401, 'UNAUTHENTICATED']),
          );
        }
      }
      // The dedup key (member, source_type, external_id) swallowed nothing: a crossed write of an id, then the
      // owner's genuine event with that id, is stored (accepted 1, deduplicated 0).
      const externalId = `crossed-${randomUUID()}`;
      const event = { events: [{ event_type: 'deploy', source_type: 'ci', external_id: externalId }] };
      expect((await on(g1).post(sign(owner.memberId, stranger.workspaceId), '/v1/activity/events', event)).status).toBe(401);
      const genuine = await on(g2).post<{ accepted: number; deduplicated: number }>(owner.token, '/v1/activity/events', event);
      expect([genuine.status, genuine.body.data.accepted, genuine.body.data.deduplicated]).toEqual([202, 1, 0]);
      // Nothing was created for the owner: no session, no plate item.
      expect((await on(g1).get<SessionBody[]>(owner.token, '/v1/sessions')).body.data).toEqual([]);
      expect((await on(g1).get<PlateDay>(owner.token, '/v1/plate')).body.data.active_count).toBe(0);
    });

    it('refuses a JWT for a member that does not exist (401 on writes, never 2xx)', async () => {
      const ghost = sign(randomUUID(), owner.workspaceId);
      const replies = await Promise.all(writes(ghost, g1, owner.memberId));
      expect(replies.map((r) => r.status)).toEqual([401, 401, 401]);
    });

    it('reads ids in canonical lower case: an upper-case JWT acts as the member and shares its rate-limit window', async () => {
      const upper = sign(teammate.memberId.toUpperCase(), teammate.workspaceId.toUpperCase());
      const lower = sign(teammate.memberId, teammate.workspaceId);
      const started = await on(g1).post<SessionBody>(upper, '/v1/sessions', { intent_text: 'upper', source: 'timer' });
      expect(started.status).toBe(201);
      const listed = await on(g2).get<SessionBody[]>(teammate.token, '/v1/sessions');
      expect(listed.body.data.map((s) => s.session_id)).toContain(started.body.data.session_id);
      const me = await on(g1).get<MemberBody>(upper, '/v1/me');
      expect(me.body.data.member_id).toBe(teammate.memberId);
      const a = Number((await on(g1).get(upper, '/v1/me')).headers.get('ratelimit-remaining'));
      const b = Number((await on(g1).get(lower, '/v1/me')).headers.get('ratelimit-remaining'));
      const c = Number((await on(g1).get(teammate.token, '/v1/me')).headers.get('ratelimit-remaining'));
      expect([a - b, b - c]).toEqual([1, 1]); // one window, whatever the spelling or the credential
    });
  });

  describe('read-your-writes across services', () => {
    it('an agent registered on one replica is usable on the other at once, as actor and assignee, 200 times without a failure', async () => {
      const yesterday = tokyoDay(-1);
      const failures: string[] = [];
      for (let i = 0; i < 200; i++) {
        const [creator, user] = i % 2 === 0 ? [g1, g2] : [g2, g1];
        const created = await on(creator).post<{ agent: MemberBody; token: string }>(owner.token, '/v1/agents', {
          name: `agent ${i}`,
          scope: 'full',
        });
        if (created.status !== 201) {
          failures.push(`#${i} register: ${created.status}`);
          continue;
        }
        const { agent, token } = created.body.data;
        const asJwt = sign(agent.member_id, agent.workspace_id);
        const manual = await on(user).post<SessionBody>(token, '/v1/sessions', manualAt(yesterday, 'Asia/Tokyo'));
        const [byDate, ingested, assigned, day] = await Promise.all([
          on(user).get<SessionBody[]>(asJwt, `/v1/sessions?from=${yesterday}&to=${yesterday}`),
          on(user).post(asJwt, '/v1/activity/events', { events: [{ event_type: 'deploy', source_type: 'ci', external_id: `e-${i}` }] }),
          on(user).post<Assignment>(owner.token, '/v1/plate/assign', { assignee_id: agent.member_id, title: `welcome ${i}` }),
          on(user).get<PlateDay>(token, '/v1/plate'),
        ]);
        const problems = [
          manual.status !== 201 && `manual session ${manual.status}`,
          (byDate.status !== 200 || !byDate.body.data.some((s) => s.session_id === manual.body.data?.session_id)) &&
            `sessions by Tokyo date ${byDate.status} ${JSON.stringify(byDate.body).slice(0, 200)}`,
          ingested.status !== 202 && `ingest ${ingested.status}`,
          (assigned.status !== 201 || assigned.body.data.plate_date !== tokyoDay()) &&
            `assign ${assigned.status} ${JSON.stringify(assigned.body)}`,
          (day.status !== 200 || day.body.data.capacity !== 6) && `plate ${day.status}`,
        ].filter(Boolean);
        if (problems.length > 0) failures.push(`#${i}: ${problems.join('; ')}`);
      }
      expect(failures).toEqual([]);
    }, 600_000);

    it('a member created by the admin command is usable on the very next request, as assignee and actor on plate, sessions and ingestion, on both replicas', async () => {
      for (let i = 0; i < 3; i++) {
        const fresh = memberWithToken({ workspace: `mem-A-${run}`, email: `fresh-${i}-${run}@example.com`, timezone: 'Asia/Tokyo' });
        const g = i % 2 === 0 ? g1 : g2;
        const assigned = await on(g).post<Assignment>(owner.token, '/v1/plate/assign', { assignee_id: fresh.memberId, title: 'hello' });
        expect([assigned.status, assigned.body.data?.plate_date]).toEqual([201, tokyoDay()]);
        const manual = await on(g).post<SessionBody>(fresh.token, '/v1/sessions', manualAt(tokyoDay(-1), 'Asia/Tokyo'));
        const byDate = await on(g).get<SessionBody[]>(fresh.token, `/v1/sessions?from=${tokyoDay(-1)}&to=${tokyoDay(-1)}`);
        expect(byDate.body.data.map((s) => s.session_id)).toEqual([manual.body.data.session_id]);
        const ingested = await on(g).post(sign(fresh.memberId, fresh.workspaceId), '/v1/activity/events', {
          events: [{ event_type: 'deploy', source_type: 'ci', external_id: `fresh-${i}` }],
        });
        const day = await on(g).get<PlateDay>(fresh.token, '/v1/plate');
        expect([ingested.status, day.status, day.body.data?.date, day.body.data?.active_count]).toEqual([202, 200, tokyoDay(), 1]);
      }
    });
  });

  describe('profile changes', () => {
    let member: MemberWithToken;
    beforeAll(() => {
      member = memberWithToken({ workspace: `mem-A-${run}`, email: `traveller-${run}@example.com`, timezone: 'Asia/Tokyo' });
    });

    it('PATCH /v1/me validates: an unknown zone, an offset, bad hours, nulls, unknown fields and an empty body are 400', async () => {
      for (const body of [
        { timezone: 'Mars/Olympus' },
        { timezone: '+05:00' },
        { timezone: '' },
        { working_hours: { ...NO_HOURS, mon: [{ start: '17:00', end: '09:00' }] } },
        { working_hours: { ...NO_HOURS, mon: [{ start: '25:00', end: '26:00' }] } },
        { working_hours: { mon: [] } },
        { display_name: '' },
        { display_name: null },
        { timezone: null },
        { plate_capacity: 3 },
        {},
      ]) {
        const res = await on(g1).patch(member.token, '/v1/me', body);
        expect([JSON.stringify(body), res.status, res.body.error?.code]).toEqual([JSON.stringify(body), 400, 'VALIDATION_FAILED']);
      }
      expect((await on(g1).get<MemberBody>(member.token, '/v1/me')).body.data.timezone).toBe('Asia/Tokyo');
    });

    it('PATCH /v1/me answers the updated profile; date filters follow the new zone from the next request; stored plate days stay', async () => {
      // A session at 00:30 Tokyo time of day D lies on D in Tokyo, on D-1 in UTC and in Los Angeles.
      const d = tokyoDay(-2);
      const s = (await on(g1).post<SessionBody>(member.token, '/v1/sessions', manualAt(d, 'Asia/Tokyo'))).body.data;
      const item = (await on(g1).post<Assignment>(owner.token, '/v1/plate/assign', { assignee_id: member.memberId, title: 'stays' })).body
        .data;
      expect(item.plate_date).toBe(tokyoDay());
      const onDay = async (g: AppProcess, day: string) =>
        (await on(g).get<SessionBody[]>(member.token, `/v1/sessions?from=${day}&to=${day}`)).body.data.map((x) => x.session_id);
      expect(await onDay(g1, d)).toEqual([s.session_id]);

      const changed = await on(g1).patch<MemberBody>(member.token, '/v1/me', {
        timezone: 'america/los_angeles',
        working_hours: ALL_WEEK,
        display_name: 'Traveller',
      });
      expect(changed.status).toBe(200);
      expect(changed.body.data).toMatchObject({
        member_id: member.memberId,
        timezone: 'America/Los_Angeles', // canonical spelling
        working_hours: ALL_WEEK,
        display_name: 'Traveller',
      });
      // The replica that answered: at once.
      const dayBefore = DateTime.fromISO(d).minus({ days: 1 }).toISODate()!;
      expect(await onDay(g1, dayBefore)).toEqual([s.session_id]);
      expect(await onDay(g1, d)).toEqual([]);
      // The other replica: once identity's change event reached it (bounded, well under 5 s).
      const deadline = Date.now() + 5_000;
      while ((await onDay(g2, dayBefore)).join() !== s.session_id) {
        if (Date.now() > deadline) throw new Error('the other replica never used the new zone');
        await new Promise((r) => setTimeout(r, 100));
      }
      // "Today" follows the zone; the stored item keeps its calendar day.
      const today = await on(g1).get<PlateDay>(member.token, '/v1/plate');
      expect(today.body.data.date).toBe(DateTime.now().setZone('America/Los_Angeles').toISODate());
      const stored = await on(g1).get<PlateDay>(member.token, `/v1/plate?date=${item.plate_date}`);
      expect(stored.body.data.items.map((x) => x.plate_item_id)).toContain(item.plate_item_id);
      const next = await on(g1).post<Assignment>(owner.token, '/v1/plate/assign', { assignee_id: member.memberId, title: 'LA' });
      expect(next.body.data.plate_date).toBe(DateTime.now().setZone('America/Los_Angeles').toISODate());
    });

    it("PATCH /v1/members/{id}: owners set a member's capacity and role; others get 403; another workspace's member is 404", async () => {
      const target = memberWithToken({ workspace: `mem-A-${run}`, email: `cap-${run}@example.com`, timezone: 'Asia/Tokyo' });
      const denied = await on(g1).patch(teammate.token, `/v1/members/${target.memberId}`, { plate_capacity: 1 });
      expect([denied.status, denied.body.error.code]).toEqual([403, 'FORBIDDEN']);
      const foreign = await on(g1).patch(owner.token, `/v1/members/${stranger.memberId}`, { plate_capacity: 1 });
      expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
      for (const body of [
        { plate_capacity: -1 },
        { plate_capacity: 1.5 },
        { plate_capacity: '2' },
        { role: 'king' },
        { plate_capacity: null },
      ]) {
        expect((await on(g1).patch(owner.token, `/v1/members/${target.memberId}`, body)).status).toBe(400);
      }
      expect((await on(g1).patch(owner.token, '/v1/members/not-a-uuid', { plate_capacity: 1 })).status).toBe(400);

      const set = await on(g1).patch<MemberBody>(owner.token, `/v1/members/${target.memberId.toUpperCase()}`, {
        plate_capacity: 1,
        role: 'admin',
      });
      expect([set.status, set.body.data.plate_capacity, set.body.data.role, set.body.data.active]).toEqual([200, 1, 'admin', true]);
      // The next assignment on the other replica uses capacity 1: the second one overflows.
      const first = await on(g2).post<Assignment>(owner.token, '/v1/plate/assign', { assignee_id: target.memberId, title: 'one' });
      const second = await on(g2).post<Assignment>(owner.token, '/v1/plate/assign', { assignee_id: target.memberId, title: 'two' });
      expect([first.body.data.capacity, first.body.data.overflowed, second.body.data.overflowed]).toEqual([1, false, true]);
      // Now an admin, the target may manage members (but not make owners).
      const promote = await on(g1).patch(target.token, `/v1/members/${teammate.memberId}`, { role: 'owner' });
      expect([promote.status, promote.body.error.code]).toEqual([403, 'FORBIDDEN']);
      expect((await on(g1).patch(target.token, `/v1/members/${teammate.memberId}`, { plate_capacity: 7 })).status).toBe(200);
    });
  });

  describe('deactivation', () => {
    it("stops the member's tokens and JWTs within 5 s on every replica, keeps their data, and refuses them as an assignee", async () => {
      const leaving = memberWithToken({ workspace: `mem-A-${run}`, email: `leaving-${run}@example.com`, timezone: 'Asia/Tokyo' });
      const asJwt = sign(leaving.memberId, leaving.workspaceId);
      const item = (await on(g1).post<Assignment>(owner.token, '/v1/plate/assign', { assignee_id: leaving.memberId, title: 'kept' })).body
        .data;
      const own = await on(g1).post(leaving.token, '/v1/sessions', { intent_text: 'mine', source: 'timer' });
      const event = await on(g1).post(leaving.token, '/v1/activity/events', {
        events: [{ event_type: 'deploy', source_type: 'ci', external_id: `leaving-${run}` }],
      });
      expect([own.status, event.status]).toEqual([201, 202]);
      // Warm both replicas' caches with both credentials.
      for (const g of [g1, g2]) for (const t of [leaving.token, asJwt]) expect((await on(g).get(t, '/v1/me')).status).toBe(200);

      const denied = await on(g1).post(teammate.token, `/v1/members/${leaving.memberId}/deactivate`);
      expect([denied.status, denied.body.error.code]).toEqual([403, 'FORBIDDEN']);
      const at = Date.now();
      const done = await on(g1).post<MemberBody>(owner.token, `/v1/members/${leaving.memberId}/deactivate`);
      expect([done.status, done.body.data.active]).toEqual([200, false]);
      const again = await on(g2).post<MemberBody>(owner.token, `/v1/members/${leaving.memberId}/deactivate`);
      expect([again.status, again.body.data.active]).toEqual([200, false]); // idempotent

      const refusedEverywhere = async (): Promise<boolean> => {
        const statuses = await Promise.all(
          [g1, g2].flatMap((g) => [leaving.token, asJwt].map(async (t) => (await on(g).get(t, '/v1/me')).status)),
        );
        return statuses.every((s) => s === 401);
      };
      while (!(await refusedEverywhere())) {
        if (Date.now() - at > 5_000) throw new Error('a credential of the deactivated member still works after 5 s');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(Date.now() - at).toBeLessThan(5_000);
      for (const g of [g1, g2]) {
        const assign = await on(g).post(owner.token, '/v1/plate/assign', { assignee_id: leaving.memberId, title: 'no' });
        expect([assign.status, assign.body.error.code]).toEqual([400, 'ASSIGNEE_NOT_FOUND']);
        expect((await Promise.all(writes(asJwt, g, owner.memberId))).map((r) => r.status)).toEqual([401, 401, 401]);
      }
      // Nothing of theirs is deleted: the item the owner gave them is still there for its assigner.
      const complete = await call<{ data: { done: boolean } }>(g1.url, 'PATCH', `/v1/plate/items/${item.plate_item_id}`, {
        token: owner.token,
        body: { done: true },
      });
      expect([complete.status, complete.body.data.done]).toEqual([200, true]);
      // ... and what they stored stays stored: their session, their event, the member row and its token (refused, not removed).
      const kept = await db.query<{ sessions: string; events: string; tokens: string; deactivated: boolean }>(
        `SELECT (SELECT count(*) FROM sessions.sessions WHERE member_id = $1) AS sessions,
                (SELECT count(*) FROM ingestion.activity_events WHERE member_id = $1) AS events,
                (SELECT count(*) FROM identity.api_tokens WHERE member_id = $1) AS tokens,
                (SELECT deactivated_at IS NOT NULL FROM identity.members WHERE id = $1) AS deactivated`,
        [leaving.memberId],
      );
      expect(kept.rows[0]).toEqual({ sessions: '1', events: '1', tokens: '1', deactivated: true });
    });

    it('keeps at least one active owner', async () => {
      const lone = memberWithToken({ workspace: `mem-C-${run}`, email: `lone-${run}@example.com` });
      const self = await on(g1).post(lone.token, `/v1/members/${lone.memberId}/deactivate`);
      expect([self.status, self.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
      const demote = await on(g1).patch(lone.token, `/v1/members/${lone.memberId}`, { role: 'member' });
      expect([demote.status, demote.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    });
  });

  describe('the durable member log (identity.members)', () => {
    interface Row {
      member_id: string;
      timezone: string;
      version: number;
      plate_capacity?: number;
      active?: boolean;
    }
    /** Every member of this spec's workspaces as identity holds it, and as each projection holds it. */
    const states = async () => {
      const workspaces = [owner.workspaceId, stranger.workspaceId];
      const rows = async (sql: string): Promise<Row[]> =>
        (await db.query<Row>(`${sql} WHERE workspace_id = ANY($1) ORDER BY 1`, [workspaces])).rows;
      const identityRows = await rows(
        'SELECT id AS member_id, timezone, version, plate_capacity, deactivated_at IS NULL AS active FROM identity.members',
      );
      return {
        identity: identityRows,
        plate: await rows('SELECT member_id, timezone, version, plate_capacity, active FROM plate.members'),
        sessions: await rows('SELECT member_id, timezone, version FROM sessions.members'),
        sessionsExpected: identityRows.map(({ member_id, timezone, version }) => ({ member_id, timezone, version })),
      };
    };

    it('every member identity created (admin command, agent registration) or changed (profile, capacity, role, deactivation) reaches the sessions and plate projections', async () => {
      const deadline = Date.now() + 30_000;
      let s = await states();
      while (JSON.stringify(s.plate) !== JSON.stringify(s.identity) || JSON.stringify(s.sessions) !== JSON.stringify(s.sessionsExpected)) {
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 200));
        s = await states();
      }
      expect(s.identity.length).toBeGreaterThan(200); // the 200 agents and the humans of workspaces A and B
      expect(s.identity.some((m) => m.version > 1)).toBe(true); // changed members, not only created ones
      expect(s.identity.some((m) => m.active === false)).toBe(true); // a deactivated one
      expect(s.plate).toEqual(s.identity);
      expect(s.sessions).toEqual(s.sessionsExpected);
    });

    it('a projection emptied while its service is down is rebuilt, however old its members, before the restarted service takes commands', async () => {
      await Promise.all([sessions.stop(), plate.stop()]);
      await db.query('DELETE FROM sessions.members');
      await db.query('DELETE FROM plate.members');
      sessions = await startAppProcess('sessions', {}, 90_000);
      plate = await startAppProcess('plate', {}, 90_000);
      // Right after readiness, without waiting for anything: the replay ran before the services took commands.
      const s = await states();
      expect(s.identity.length).toBeGreaterThan(200);
      expect(s.plate).toEqual(s.identity);
      expect(s.sessions).toEqual(s.sessionsExpected);
      // And the restarted services answer for a member by date and by day.
      const byDate = await on(g1).get<SessionBody[]>(owner.token, `/v1/sessions?from=${tokyoDay()}&to=${tokyoDay()}`);
      const day = await on(g2).get<PlateDay>(owner.token, '/v1/plate');
      expect([byDate.status, day.status, day.body.data.date]).toEqual([200, 200, tokyoDay()]);
    }, 240_000);

    it('republish-members writes every member again, and replaying it changes no projection (consumers keep the newest version)', async () => {
      const before = await states();
      const result = spawnSync(process.execPath, [mainOf('identity'), 'admin', 'republish-members'], {
        cwd: repoRoot(),
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: 'error' },
        timeout: 60_000,
      });
      expect(result.status).toBe(0);
      const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM identity.members');
      expect(JSON.parse(result.stdout.trim())).toEqual({ republished: Number(rows[0].n) });
      // Once identity's relay has put them all on the broker (the outbox is empty) and the consumers had a moment for them:
      const deadline = Date.now() + 30_000;
      while (Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM identity.outbox')).rows[0].n) > 0) {
        if (Date.now() > deadline) throw new Error('identity never published the republished members');
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await states()).toEqual(before);
    });
  });

  describe('GET /v1/members', () => {
    interface Listed {
      member_id: string;
      kind: string;
      display_name: string;
      role?: string;
      active?: boolean;
      plate_capacity?: number;
      last_seen_at?: string | null;
    }
    const page = (g: AppProcess, token: string, query = '') =>
      call<{ data: Listed[]; meta: { cursor: string | null } } & ErrorBody>(g.url, 'GET', `/v1/members${query}`, { token });

    it('lists everyone to owners and admins (role, capacity, status, last use), names of active teammates to members, itself to report_only; pages across replicas', async () => {
      const workspace = `mem-L-${run}`;
      const boss = memberWithToken({ workspace, email: `boss-${run}@example.com`, role: 'owner', capacity: 4 });
      const pal = memberWithToken({ workspace, email: `pal-${run}@example.com`, role: 'member' });
      const gone = memberWithToken({ workspace, email: `gone-${run}@example.com`, role: 'member' });
      const agent = await on(g1).post<{ agent: MemberBody; token: string }>(boss.token, '/v1/agents', { name: `Bot ${run}` });
      expect(agent.status).toBe(201);
      expect((await on(g1).post(boss.token, `/v1/members/${gone.memberId}/deactivate`)).status).toBe(200);
      expect((await on(g2).get(agent.body.data.token, '/v1/me')).status).toBe(200); // the agent is seen

      const ids = [boss.memberId, pal.memberId, gone.memberId, agent.body.data.agent.member_id];
      // The use is recorded as the token is verified, so it shows within moments.
      let all: Listed[] = [];
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
        const answer = await page(g1, boss.token);
        expect(answer.status).toBe(200);
        all = answer.body.data;
        if (all.find((m) => m.kind === 'agent')?.last_seen_at) break;
      }
      expect(all.map((m) => m.member_id)).toEqual(ids);
      expect(all[0]).toMatchObject({ role: 'owner', plate_capacity: 4, active: true });
      expect(all[2]).toMatchObject({ active: false });
      expect(all[3]).toMatchObject({ kind: 'agent', role: 'member', display_name: `Bot ${run}` });
      expect(Date.now() - Date.parse(all[3].last_seen_at!)).toBeLessThan(120_000);

      const seenByPal = await page(g2, pal.token);
      expect(seenByPal.body.data.map((m) => m.member_id)).toEqual([boss.memberId, pal.memberId, agent.body.data.agent.member_id]);
      expect(seenByPal.body.data[0]).toEqual({ member_id: boss.memberId, kind: 'human', display_name: `boss-${run}` });
      expect(seenByPal.body.data[1]).toMatchObject({ role: 'member', active: true });
      expect((await page(g1, agent.body.data.token)).body.data.map((m) => m.member_id)).toEqual([agent.body.data.agent.member_id]);
      expect((await page(g1, boss.token, '?kind=agent')).body.data.map((m) => m.member_id)).toEqual([agent.body.data.agent.member_id]);
      expect((await page(g1, stranger.token)).body.data.map((m) => m.member_id)).toEqual([stranger.memberId]);

      // One at a time, alternating replicas: every member once, in order.
      const paged: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 10; i++) {
        const answer = await page(i % 2 ? g2 : g1, boss.token, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(answer.status).toBe(200);
        paged.push(...answer.body.data.map((m) => m.member_id));
        cursor = answer.body.meta.cursor;
        if (!cursor) break;
      }
      expect(paged).toEqual(ids);
    });

    it('refuses a bad cursor (another caller, another filter, altered) with INVALID_CURSOR and bad paging or kind with VALIDATION_FAILED', async () => {
      const first = await page(g1, owner.token, '?limit=1');
      const cursor = encodeURIComponent(first.body.meta.cursor!);
      for (const [token, query] of [
        [teammate.token, `?limit=1&cursor=${cursor}`],
        [owner.token, `?limit=1&kind=agent&cursor=${cursor}`],
        [owner.token, `?limit=1&cursor=${cursor}x`],
        [owner.token, '?cursor=garbage'],
      ] as const) {
        const answer = await page(g1, token, query);
        expect([answer.status, answer.body.error.code]).toEqual([400, 'INVALID_CURSOR']);
      }
      for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?kind=robot', '?colour=blue']) {
        const answer = await page(g2, owner.token, query);
        expect([query, answer.status, answer.body.error.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
      }
      expect((await call(g1.url, 'GET', '/v1/members')).status).toBe(401);
    });
  });

  it('documents the new routes in /openapi.yaml', async () => {
    const doc = await (await fetch(`${g1.url}/openapi.yaml`)).text();
    const { paths } = parse(doc) as { paths: Record<string, Record<string, { tags?: string[] }>> }; // relative to the `/v1` server
    expect(paths['/members/{member_id}/deactivate'].post.tags).toEqual(['Members']);
    expect(paths['/members/{member_id}'].patch.tags).toEqual(['Members']);
    expect(paths['/members'].get.tags).toEqual(['Members']);
    expect(Object.keys(paths['/me']).sort()).toEqual(['get', 'patch']);
  });
});
