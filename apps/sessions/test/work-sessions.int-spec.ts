import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DateTime } from 'luxon';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  allTopics,
  CloseSession,
  ListSessions,
  MemberState,
  PauseSession,
  ResumeSession,
  SessionChanged,
  StartSession,
  type ActorV1,
  type ListSessionsV1,
  type SessionChangedV1,
  type SessionV1,
  type StartSessionV1,
} from '@worktrack/contracts';
import {
  AppConfig,
  CommandClient,
  createLogger,
  DomainError,
  ensureTopics,
  KafkaClient,
  Metrics,
  startService,
  type RunningConsumer,
} from '@worktrack/platform';
import { eventually, MessagePublisher, readTopic, testConfig, type TestKafka } from '@worktrack/testing';
import { SessionsConfig } from '../src/sessions.config';
import { SessionsAppModule } from '../src/app.module';
import { SessionsPublisher } from '../src/sessions/sessions.publisher';
import { SessionsRepository } from '../src/sessions/sessions.repository';
import { SessionsService } from '../src/sessions/sessions.service';
import { SessionsSweeper } from '../src/sessions/sessions.sweeper';
import { migratedSessionsSchema } from './migrated-schema';

const HOUR = 3_600_000;
const MAX = 12 * HOUR;

const actorOf = (memberId: string = randomUUID(), workspaceId: string = randomUUID()): ActorV1 => ({
  memberId,
  workspaceId,
  scope: 'full',
  credential: 'api_token',
});
type StartBody = Omit<StartSessionV1, 'actor' | 'requestedAt'>;
const timer = (over: Partial<StartBody> = {}): StartBody => ({ intentText: 'write the report', source: 'timer', ...over });
const manual = (startedAt: string, endedAt: string, over: Partial<StartBody> = {}): StartBody => ({
  intentText: 'a block',
  source: 'manual',
  startedAt,
  endedAt,
  ...over,
});
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

interface Published {
  key: string | null;
  payload: SessionChangedV1;
}

/** The sessions service through its real command topic, Postgres, outbox and identity's member feed. */
describe('sessions: work sessions', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let rpc: CommandClient;
  let db: DataSource;
  let reader: RunningConsumer;
  const published: Published[] = [];

  const send = {
    start: (actor: ActorV1, body: StartBody) =>
      rpc.send(StartSession, { actor, requestedAt: new Date().toISOString(), ...body }, { key: actor.memberId }),
    pause: (actor: ActorV1, sessionId: string, pauseReason?: string) =>
      rpc.send(PauseSession, { actor, sessionId, ...(pauseReason !== undefined ? { pauseReason } : {}) }, { key: actor.memberId }),
    resume: (actor: ActorV1, sessionId: string) => rpc.send(ResumeSession, { actor, sessionId }, { key: actor.memberId }),
    close: (actor: ActorV1, sessionId: string, extra: { closingNote?: string; closedAt?: string } = {}) =>
      rpc.send(CloseSession, { actor, sessionId, ...extra }, { key: actor.memberId }),
    list: (actor: ActorV1, q: Omit<ListSessionsV1, 'actor' | 'limit'> & { limit?: number } = {}) =>
      rpc.send(ListSessions, { actor, limit: 100, ...q }, { key: actor.memberId }),
  };
  const failure = async (promise: Promise<unknown>): Promise<DomainError> => {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
    return err;
  };
  const changesOf = (sessionId: string): SessionChangedV1[] =>
    published.filter((p) => p.payload.sessionId === sessionId).map((p) => p.payload);
  const stored = async (sessionId: string): Promise<Record<string, unknown>> =>
    (await db.query<Array<Record<string, unknown>>>(`SELECT * FROM sessions.sessions WHERE id = $1`, [sessionId]))[0];
  const pausesOf = (sessionId: string) =>
    db.query<Array<{ paused_at: Date; resumed_at: Date | null; reason: string | null }>>(
      `SELECT paused_at, resumed_at, reason FROM sessions.session_pauses WHERE session_id = $1 ORDER BY paused_at`,
      [sessionId],
    );
  /** A live session as if started `ageMs` ago (what 12 hours of waiting would leave behind). */
  const insertLive = async (actor: ActorV1, ageMs: number, state: 'active' | 'paused' = 'active'): Promise<string> => {
    const id = randomUUID();
    const startedAt = new Date(Date.now() - ageMs);
    await db.query(
      `INSERT INTO sessions.sessions (id, workspace_id, member_id, source, state, work_type, intent_text, user_tags, started_at, revision, created_at, updated_at)
       VALUES ($1, $2, $3, 'timer', $4, 'intentional', 'old', '{}', $5, 1, $5, $5)`,
      [id, actor.workspaceId, actor.memberId, state, startedAt],
    );
    if (state === 'paused') {
      await db.query(`INSERT INTO sessions.session_pauses (id, session_id, paused_at, reason) VALUES ($1, $2, $3, 'lunch')`, [
        randomUUID(),
        id,
        new Date(startedAt.getTime() + HOUR),
      ]);
    }
    return id;
  };

  beforeAll(async () => {
    await migratedSessionsSchema();
    // Topics and consumer groups of its own (under the run's prefix, so teardown removes them): another
    // sessions app of this run (the skeleton spec) must not answer these commands, nor this one theirs.
    const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}work-sessions.`;
    const config = testConfig(AppConfig, { KAFKA_TOPIC_PREFIX: prefix, INSTANCE_ID: `sessions-it-${randomUUID().slice(0, 8)}` });
    const logger = createLogger('sessions-it', config.LOG_LEVEL, config.INSTANCE_ID);
    const client = new KafkaClient('sessions-it', config, logger);
    kafka = { client, logger, metrics: new Metrics('sessions-it'), close: () => client.close() };
    await ensureTopics(await client.admin(), allTopics(), prefix);
    app = await startService(
      'sessions',
      SessionsAppModule,
      testConfig(SessionsConfig, { SESSION_SWEEP_INTERVAL_MS: '200', KAFKA_TOPIC_PREFIX: prefix }),
    );
    db = app.get(DataSource);
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 15_000 });
    await rpc.start();
    reader = await readTopic(kafka.client, SessionChanged, ({ key, payload }) => published.push({ key, payload }));
  });

  afterAll(async () => {
    await reader?.stop();
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
  });

  describe('start (D-23, D-24, D-30)', () => {
    it('starts a timer session now with the defaults, stores what is not shown, and publishes created keyed by member', async () => {
      const actor = actorOf();
      const goalId = randomUUID();
      const taskId = randomUUID();
      const before = Date.now();
      const s = await send.start(actor, timer({ goalId, taskId, estimatedDurationMin: 45, intentText: 'x'.repeat(500) }));
      expect(s).toEqual({
        sessionId: expect.any(String) as string,
        intentText: 'x'.repeat(500),
        state: 'active',
        source: 'timer',
        workType: 'intentional',
        goalId,
        projectId: null,
        startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
        closedAt: null,
        userTags: [],
        createdAt: s.startedAt,
        pausedMs: 0,
        pausedSince: null,
      });
      expect(Date.parse(s.startedAt)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(s.startedAt)).toBeLessThanOrEqual(Date.now());
      expect(await stored(s.sessionId)).toMatchObject({ task_id: taskId, estimated_duration_min: 45, closed_reason: null, revision: 1 });
      await eventually(() => changesOf(s.sessionId).length === 1, 'the created message');
      const message = published.find((p) => p.payload.sessionId === s.sessionId);
      expect(message).toEqual({
        key: actor.memberId,
        payload: {
          change: 'created',
          sessionId: s.sessionId,
          memberId: actor.memberId,
          workspaceId: actor.workspaceId,
          source: 'timer',
          state: 'active',
          startedAt: s.startedAt,
          closedAt: null,
          closedReason: null,
          revision: 1,
          changedAt: s.startedAt,
          workType: 'intentional',
          projectId: null,
          goalId,
          intentText: 'x'.repeat(500),
          userTags: [],
          createdAt: s.startedAt,
        },
      });
    });

    it('closes the previous live session at the new started_at, paused or not (D-23), and publishes closed before created', async () => {
      const actor = actorOf();
      const first = await send.start(actor, timer({ intentText: 'first' }));
      await send.pause(actor, first.sessionId, 'coffee');
      const second = await send.start(actor, timer({ intentText: 'second' }));
      const [listed] = (await send.list(actor, { state: 'closed' })).sessions;
      expect(listed).toMatchObject({ sessionId: first.sessionId, state: 'closed', closedAt: second.startedAt });
      expect(await stored(first.sessionId)).toMatchObject({ closed_reason: 'new_timer' });
      const [pause] = await pausesOf(first.sessionId);
      expect(pause.resumed_at?.toISOString()).toBe(second.startedAt); // the open pause ends with the session
      await eventually(() => changesOf(second.sessionId).length === 1, 'the second created message');
      const mine = published.filter((p) => p.payload.memberId === actor.memberId).map((p) => [p.payload.change, p.payload.sessionId]);
      expect(mine).toEqual([
        ['created', first.sessionId],
        ['paused', first.sessionId],
        ['closed', first.sessionId],
        ['created', second.sessionId],
      ]);
      expect(changesOf(first.sessionId).at(-1)).toMatchObject({
        state: 'closed',
        closedAt: second.startedAt,
        closedReason: 'new_timer',
        revision: 3,
      });
    });

    it('records a manual block as closed, without touching the live session, overlapping allowed (D-24)', async () => {
      const actor = actorOf();
      const live = await send.start(actor, timer());
      const projectId = randomUUID();
      const block = await send.start(actor, manual('2026-05-01T09:00:00+02:00', '2026-05-01T10:30:00.250+02:00', { projectId }));
      expect(block).toMatchObject({
        state: 'closed',
        source: 'manual',
        projectId,
        startedAt: '2026-05-01T07:00:00.000Z',
        closedAt: '2026-05-01T08:30:00.250Z',
      });
      const overlapping = await send.start(actor, manual('2026-05-01T07:30:00Z', '2026-05-01T08:00:00Z'));
      expect(overlapping.state).toBe('closed');
      expect((await send.list(actor, { state: 'active' })).sessions.map((s) => s.sessionId)).toEqual([live.sessionId]);
      await eventually(() => changesOf(block.sessionId).length === 1, 'the manual created message');
      expect(changesOf(block.sessionId)[0]).toMatchObject({
        change: 'created',
        state: 'closed',
        closedAt: block.closedAt,
        closedReason: null,
      });
    });

    it.each([
      ['manual without ended_at', { source: 'manual', startedAt: '2026-05-01T09:00:00Z' }, ['ended_at']],
      ['manual without either time', { source: 'manual' }, ['started_at', 'ended_at']],
      [
        'timer with times',
        { source: 'timer', startedAt: '2026-05-01T09:00:00Z', endedAt: '2026-05-01T10:00:00Z' },
        ['started_at', 'ended_at'],
      ],
      [
        'ended_at not after started_at',
        { source: 'manual', startedAt: '2026-05-01T09:00:00Z', endedAt: '2026-05-01T11:00:00+02:00' },
        ['ended_at'],
      ],
      [
        'ended_at over a minute ahead',
        { source: 'manual', startedAt: ago(HOUR), endedAt: new Date(Date.now() + 90_000).toISOString() },
        ['ended_at'],
      ],
      [
        'longer than the maximum duration',
        { source: 'manual', startedAt: '2026-05-01T00:00:00Z', endedAt: '2026-05-01T12:00:00.001Z' },
        ['ended_at'],
      ],
    ] as Array<[string, Partial<StartBody>, string[]]>)(
      'refuses %s with VALIDATION_FAILED and stores nothing',
      async (_name, body, paths) => {
        const actor = actorOf();
        const err = await failure(send.start(actor, { intentText: 'x', source: 'manual', ...body }));
        expect(err.code).toBe('VALIDATION_FAILED');
        expect(err.details?.map((d) => d.path)).toEqual(paths);
        expect((await send.list(actor)).sessions).toEqual([]);
      },
    );

    it('accepts a manual block of exactly the maximum duration ending a minute ahead', async () => {
      const end = new Date(Date.now() + 50_000);
      const s = await send.start(actorOf(), manual(new Date(end.getTime() - MAX).toISOString(), end.toISOString()));
      expect(Date.parse(s.closedAt!) - Date.parse(s.startedAt)).toBe(MAX);
    });

    it('starts nothing twice when Kafka redelivers a start command (same message id)', async () => {
      const actor = actorOf();
      const service = app.get(SessionsService);
      const command = { actor, requestedAt: new Date().toISOString(), ...timer() };
      const a = await service.start(command, 'message-1');
      const b = await service.start(command, 'message-1');
      expect(b).toEqual(a);
      expect((await send.list(actor)).sessions).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 500));
      expect(changesOf(a.sessionId)).toHaveLength(1);
    });
  });

  describe('one live session per member, under concurrency (D-22)', () => {
    it('leaves exactly one live session and 19 closed after 20 concurrent timer starts, chained without gaps', async () => {
      const actor = actorOf();
      const service = app.get(SessionsService);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          service.start({ actor, requestedAt: new Date().toISOString(), ...timer({ intentText: `race ${i}` }) }, randomUUID()),
        ),
      );
      expect(new Set(results.map((r) => r.sessionId)).size).toBe(20);
      const all = (await send.list(actor)).sessions;
      expect(all.filter((s) => s.state === 'active')).toHaveLength(1);
      expect(all.filter((s) => s.state === 'closed')).toHaveLength(19);
      // Each closed session ends where the next one starts (D-23); the live one is the newest.
      const chain = [...all].reverse();
      chain.slice(0, -1).forEach((s, i) => expect(s.closedAt).toBe(chain[i + 1].startedAt));
      expect(chain.at(-1)?.state).toBe('active');
      const [{ live }] = await db.query<Array<{ live: number }>>(
        `SELECT count(*)::int AS live FROM sessions.sessions WHERE member_id = $1 AND state IN ('active', 'paused')`,
        [actor.memberId],
      );
      expect(live).toBe(1);
    });

    it('holds through the command topic too', async () => {
      const actor = actorOf();
      await Promise.all(Array.from({ length: 20 }, () => send.start(actor, timer())));
      const all = (await send.list(actor)).sessions;
      expect(all.map((s) => s.state).sort()).toEqual([...Array<string>(19).fill('closed'), 'active'].sort());
    });

    it('lets the database refuse a second live session whatever the code does', async () => {
      const actor = actorOf();
      await send.start(actor, timer());
      // A plain connection (TypeORM would log the expected failure).
      const client = new Client({ connectionString: testConfig(SessionsConfig).DATABASE_URL });
      await client.connect();
      try {
        await expect(
          client.query(
            `INSERT INTO sessions.sessions (id, workspace_id, member_id, source, state, work_type, intent_text, user_tags, started_at, revision, created_at, updated_at)
             VALUES ($1, $2, $3, 'timer', 'paused', 'intentional', 'second', '{}', now(), 1, now(), now())`,
            [randomUUID(), actor.workspaceId, actor.memberId],
          ),
        ).rejects.toThrow(/ux_sessions_one_live_per_member/);
      } finally {
        await client.end();
      }
    });
  });

  describe('idempotency keys (D-28)', () => {
    it('replays the session as it is now for the same key and body; another body is IDEMPOTENCY_KEY_REUSED', async () => {
      const actor = actorOf();
      const goalId = randomUUID();
      const body = timer({ idempotencyKey: 'k-1', goalId });
      const first = await send.start(actor, body);
      await send.pause(actor, first.sessionId);
      const replay = await send.start(actor, { ...body, goalId: goalId.toUpperCase() });
      expect(replay).toEqual({ ...first, state: 'paused', pausedSince: expect.any(String) as string });
      const err = await failure(send.start(actor, { ...body, intentText: 'something else' }));
      expect(err.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect((await send.list(actor)).sessions).toHaveLength(1);
      // The key is the member's: another member's same key is another session.
      const theirs = await send.start(actorOf(), body);
      expect(theirs.sessionId).not.toBe(first.sessionId);
    });

    it('compares times as instants: the same manual block with another offset is the same body', async () => {
      const actor = actorOf();
      const first = await send.start(actor, manual('2026-06-01T10:00:00+02:00', '2026-06-01T11:00:00+02:00', { idempotencyKey: 'm' }));
      const again = await send.start(actor, manual('2026-06-01T08:00:00.000Z', '2026-06-01T09:00:00Z', { idempotencyKey: 'm' }));
      expect(again.sessionId).toBe(first.sessionId);
      const moved = await failure(send.start(actor, manual('2026-06-01T08:00:00.001Z', '2026-06-01T09:00:00Z', { idempotencyKey: 'm' })));
      expect(moved.code).toBe('IDEMPOTENCY_KEY_REUSED');
    });

    it('creates one session when 20 retries of one key race', async () => {
      const actor = actorOf();
      const service = app.get(SessionsService);
      const body = timer({ idempotencyKey: 'race' });
      const results = await Promise.all(
        Array.from({ length: 20 }, () => service.start({ actor, requestedAt: new Date().toISOString(), ...body }, randomUUID())),
      );
      expect(new Set(results.map((r) => r.sessionId)).size).toBe(1);
      const all = (await send.list(actor)).sessions;
      expect(all).toHaveLength(1);
      expect(all[0].state).toBe('active');
      await new Promise((r) => setTimeout(r, 500));
      expect(changesOf(all[0].sessionId)).toHaveLength(1);
    });
  });

  describe('pause, resume, close (D-26, D-27)', () => {
    it('pauses with a reason, resumes, pauses again and closes: each a change, the pauses recorded', async () => {
      const actor = actorOf();
      const s = await send.start(actor, timer());
      // D-49: the open pause is shown from when it began; a resume adds it to the finished pauses.
      const paused = await send.pause(actor, s.sessionId, 'lunch');
      expect(paused).toEqual({ ...s, state: 'paused', pausedMs: 0, pausedSince: expect.any(String) as string });
      await new Promise((r) => setTimeout(r, 50));
      const resumed = await send.resume(actor, s.sessionId);
      expect(resumed).toEqual({ ...s, state: 'active', pausedMs: expect.any(Number) as number, pausedSince: null });
      expect(resumed.pausedMs).toBeGreaterThanOrEqual(50);
      await send.pause(actor, s.sessionId);
      const closed = await send.close(actor, s.sessionId, { closingNote: 'done for today' });
      expect(closed).toMatchObject({ state: 'closed', startedAt: s.startedAt, pausedSince: null });
      expect(Date.parse(closed.closedAt!)).toBeGreaterThanOrEqual(Date.parse(s.startedAt));
      expect(await stored(s.sessionId)).toMatchObject({ closing_note: 'done for today', closed_reason: 'explicit', revision: 5 });
      const pauses = await pausesOf(s.sessionId);
      expect(pauses.map((p) => p.reason)).toEqual(['lunch', null]);
      expect(pauses.every((p) => p.resumed_at !== null)).toBe(true);
      expect(pauses[1].resumed_at?.toISOString()).toBe(closed.closedAt);
      const pausedMs = pauses.reduce((sum, p) => sum + (p.resumed_at!.getTime() - p.paused_at.getTime()), 0);
      expect(closed.pausedMs).toBe(pausedMs);
      await eventually(() => changesOf(s.sessionId).length === 5, 'five changes');
      expect(changesOf(s.sessionId).map((c) => [c.change, c.state, c.revision])).toEqual([
        ['created', 'active', 1],
        ['paused', 'paused', 2],
        ['resumed', 'active', 3],
        ['paused', 'paused', 4],
        ['closed', 'closed', 5],
      ]);
    });

    it('answers SESSION_STATE_CONFLICT naming the current state for a pause or resume in the wrong state', async () => {
      const actor = actorOf();
      const s = await send.start(actor, timer());
      const resumeActive = await failure(send.resume(actor, s.sessionId));
      expect([resumeActive.code, resumeActive.message]).toEqual([
        'SESSION_STATE_CONFLICT',
        'The session is active; only a paused session can be resumed.',
      ]);
      await send.pause(actor, s.sessionId);
      const pausePaused = await failure(send.pause(actor, s.sessionId));
      expect([pausePaused.code, pausePaused.message]).toEqual([
        'SESSION_STATE_CONFLICT',
        'The session is paused; only an active session can be paused.',
      ]);
      await send.close(actor, s.sessionId);
      for (const attempt of [send.pause(actor, s.sessionId), send.resume(actor, s.sessionId)]) {
        const err = await failure(attempt);
        expect(err.code).toBe('SESSION_STATE_CONFLICT');
        expect(err.message).toMatch(/^The session is closed;/);
      }
    });

    it('closes idempotently: a closed session comes back unchanged, with no new change', async () => {
      const actor = actorOf();
      const s = await send.start(actor, timer());
      const closed = await send.close(actor, s.sessionId, { closingNote: 'first' });
      const again = await send.close(actor, s.sessionId, { closingNote: 'second', closedAt: ago(1000) });
      expect(again).toEqual(closed);
      expect(await stored(s.sessionId)).toMatchObject({ closing_note: 'first', revision: 2 });
      const manualBlock = await send.start(actor, manual(ago(2 * HOUR), ago(HOUR)));
      expect(await send.close(actor, manualBlock.sessionId)).toEqual(manualBlock);
      await new Promise((r) => setTimeout(r, 500));
      expect(changesOf(s.sessionId).map((c) => c.change)).toEqual(['created', 'closed']);
    });

    it('answers SESSION_NOT_FOUND for a missing id and for another member’s session', async () => {
      const actor = actorOf();
      const s = await send.start(actor, timer());
      const stranger = actorOf(undefined, actor.workspaceId);
      const elsewhere = actorOf(actor.memberId, randomUUID()); // the same member id under another workspace never matches
      for (const [who, id] of [
        [actor, randomUUID()],
        [stranger, s.sessionId],
        [elsewhere, s.sessionId],
      ] as Array<[ActorV1, string]>) {
        for (const attempt of [send.pause(who, id), send.resume(who, id), send.close(who, id)]) {
          const err = await failure(attempt);
          expect([err.code, err.message]).toEqual(['SESSION_NOT_FOUND', `Session ${id} does not exist.`]);
        }
      }
      expect((await send.list(actor)).sessions[0]).toEqual(s);
    });

    it('back-dates a close within the last 24 hours, cutting the pauses after it, and publishes backdated', async () => {
      const actor = actorOf();
      const s = await send.start(actor, timer());
      await send.pause(actor, s.sessionId, 'meeting');
      await new Promise((r) => setTimeout(r, 30));
      await send.resume(actor, s.sessionId);
      const closedAt = new Date(s.startedAt); // before the pause
      const closed = await send.close(actor, s.sessionId, { closedAt: closedAt.toISOString().replace('Z', '+00:00') });
      expect(closed).toMatchObject({ state: 'closed', closedAt: closedAt.toISOString() });
      expect(await pausesOf(s.sessionId)).toEqual([]);
      await eventually(() => changesOf(s.sessionId).length === 4, 'the backdated message');
      expect(changesOf(s.sessionId).at(-1)).toMatchObject({
        change: 'backdated',
        closedAt: closedAt.toISOString(),
        closedReason: 'explicit',
      });
    });

    it('refuses a closed_at in the future, over 24 hours ago or before the start, with VALIDATION_FAILED', async () => {
      const actor = actorOf();
      const fresh = await send.start(actor, timer());
      for (const [closedAt, issue] of [
        [new Date(Date.now() + 60_000).toISOString(), 'closed_at must not be in the future'],
        [
          new Date(Date.parse(fresh.startedAt) - 1).toISOString(),
          `closed_at must not be before the session's started_at (${fresh.startedAt})`,
        ],
      ]) {
        const err = await failure(send.close(actor, fresh.sessionId, { closedAt }));
        expect([err.code, err.details]).toEqual(['VALIDATION_FAILED', [{ path: 'closed_at', issue }]]);
      }
      await send.close(actor, fresh.sessionId);
      const longAgo = await insertLive(actor, 11 * HOUR);
      const err = await failure(send.close(actor, longAgo, { closedAt: ago(25 * HOUR) }));
      expect(err.details?.map((d) => d.issue)).toEqual([
        'closed_at may be at most 24 hours ago',
        expect.stringMatching(/^closed_at must not be before the session's started_at/) as string,
      ]);
      expect((await stored(longAgo)).state).toBe('active');
    });
  });

  describe('the maximum duration (D-25)', () => {
    it('sweeps a live session past 12 hours closed at started_at + 12h within the sweep interval, ending its pause, and publishes auto_closed', async () => {
      const actor = actorOf();
      const id = await insertLive(actor, MAX + 5_000, 'paused');
      await eventually(async () => (await stored(id)).state === 'closed', 'the sweep', 5_000);
      const row = await stored(id);
      expect((row.closed_at as Date).getTime() - (row.started_at as Date).getTime()).toBe(MAX);
      expect(row.closed_reason).toBe('max_duration');
      const [pause] = await pausesOf(id);
      expect(pause.resumed_at).toEqual(row.closed_at);
      await eventually(() => changesOf(id).length === 1, 'the auto_closed message');
      expect(changesOf(id)[0]).toMatchObject({ change: 'auto_closed', state: 'closed', closedReason: 'max_duration', revision: 2 });
      // Live and younger than that: untouched.
      const young = await insertLive(actorOf(), MAX - 60_000);
      await new Promise((r) => setTimeout(r, 600));
      expect((await stored(young)).state).toBe('active');
    });

    it('closes each expired session exactly once when several replicas sweep at the same time', async () => {
      const ids = await Promise.all(Array.from({ length: 40 }, () => insertLive(actorOf(), MAX + 60_000)));
      const sweeper = app.get(SessionsSweeper);
      // A second replica: its own sweeper on the same schema (and its own metrics registry).
      const replica = new SessionsSweeper(
        app.get(SessionsRepository),
        app.get(SessionsPublisher),
        app.get(SessionsConfig),
        kafka.logger,
        kafka.metrics,
      );
      await Promise.all([sweeper.sweep(), replica.sweep(), sweeper.sweep(), replica.sweep()]);
      // The app's own scheduled sweep may hold some rows (SKIP LOCKED) and commit just after ours.
      await eventually(
        async () => (await Promise.all(ids.map(stored))).every((row) => row.state === 'closed'),
        'every expired session closed',
      );
      await eventually(() => ids.every((id) => changesOf(id).length >= 1), 'the auto_closed messages');
      await new Promise((r) => setTimeout(r, 500));
      for (const id of ids) expect(changesOf(id).map((c) => c.change)).toEqual(['auto_closed']);
    });

    it('closes an expired session on touch first: pause answers 409 closed, a new timer does not close it at its own start', async () => {
      const actor = actorOf();
      const expired = await insertLive(actor, MAX + 2 * HOUR);
      const err = await failure(send.pause(actor, expired));
      expect(err.message).toBe('The session is closed; only an active session can be paused.');
      expect(await stored(expired)).toMatchObject({ state: 'closed', closed_reason: 'max_duration' });

      const other = actorOf();
      const stale = await insertLive(other, MAX + HOUR);
      const next = await send.start(other, timer());
      const row = await stored(stale);
      expect([row.closed_reason, (row.closed_at as Date).getTime() - (row.started_at as Date).getTime()]).toEqual(['max_duration', MAX]);
      expect(Date.parse(next.startedAt)).toBeGreaterThan((row.closed_at as Date).getTime());
      await eventually(() => changesOf(stale).length === 1, 'auto_closed of the stale session');
      expect(changesOf(stale)[0].change).toBe('auto_closed');
    });
  });

  describe('list (D-29)', () => {
    it('lists newest started_at first, ties by session_id, with state, goal and project filters', async () => {
      const actor = actorOf();
      const goal = randomUUID();
      const project = randomUUID();
      const tie = '2026-04-01T10:00:00Z';
      const a = await send.start(actor, manual(tie, '2026-04-01T11:00:00Z', { goalId: goal }));
      const b = await send.start(actor, manual(tie, '2026-04-01T11:30:00Z', { goalId: goal, projectId: project }));
      const c = await send.start(actor, manual('2026-04-02T10:00:00Z', '2026-04-02T11:00:00Z', { projectId: project }));
      const live = await send.start(actor, timer({ goalId: goal }));
      const all = (await send.list(actor)).sessions.map((s) => s.sessionId);
      expect(all).toEqual([live.sessionId, c.sessionId, ...[a.sessionId, b.sessionId].sort().reverse()]);
      expect((await send.list(actor, { goalId: goal, state: 'closed' })).sessions.map((s) => s.sessionId).sort()).toEqual(
        [a.sessionId, b.sessionId].sort(),
      );
      expect((await send.list(actor, { projectId: project })).sessions.map((s) => s.sessionId)).toEqual([c.sessionId, b.sessionId]);
      expect((await send.list(actor, { state: 'active' })).sessions.map((s) => s.sessionId)).toEqual([live.sessionId]);
      expect((await send.list(actor, { state: 'paused' })).sessions).toEqual([]);
      // Other members and other workspaces see none of them.
      expect((await send.list(actorOf(undefined, actor.workspaceId))).sessions).toEqual([]);
    });

    it('pages with a keyset cursor that never skips or repeats while sessions are added', async () => {
      const actor = actorOf();
      const base = Date.parse('2026-03-01T12:00:00.000Z');
      const originals: string[] = [];
      for (let i = 0; i < 25; i++) {
        const start = base + Math.floor(i / 3) * 60_000; // ties of three
        const s = await send.start(actor, manual(new Date(start).toISOString(), new Date(start + 30_000).toISOString()));
        originals.push(s.sessionId);
      }
      const seen: SessionV1[] = [];
      let cursor: string | undefined;
      let round = 0;
      do {
        const page = await send.list(actor, { limit: 4, state: 'closed', ...(cursor ? { cursor } : {}) });
        seen.push(...page.sessions);
        // Added while paging: newer ones (a timer, later closed by the next one), one at a tie with the page's last row, older ones.
        const last = page.sessions.at(-1);
        await send.start(actor, timer());
        if (last) await send.start(actor, manual(last.startedAt, new Date(Date.parse(last.startedAt) + 1_000).toISOString()));
        await send.start(actor, manual(new Date(base - (round + 1) * HOUR).toISOString(), new Date(base - round * HOUR - 1).toISOString()));
        round++;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const ids = seen.map((s) => s.sessionId);
      expect(new Set(ids).size).toBe(ids.length); // nothing repeated
      expect(originals.filter((id) => !ids.includes(id))).toEqual([]); // nothing skipped
      const order = seen.map((s) => `${s.startedAt}|${s.sessionId}`);
      expect([...order].sort().reverse()).toEqual(order); // newest first, ties by session_id, across pages
    });

    it('binds the cursor to its filters and refuses tampering; from after to is refused', async () => {
      const actor = actorOf();
      for (let i = 0; i < 3; i++) await send.start(actor, manual(`2026-04-0${i + 1}T10:00:00Z`, `2026-04-0${i + 1}T11:00:00Z`));
      const first = await send.list(actor, { limit: 1, state: 'closed' });
      expect(first.nextCursor).toEqual(expect.any(String));
      const wrong = await failure(send.list(actor, { limit: 1, cursor: first.nextCursor! }));
      expect(wrong.code).toBe('INVALID_CURSOR');
      const tampered = await failure(send.list(actor, { limit: 1, state: 'closed', cursor: `${first.nextCursor!.slice(0, -2)}xx` }));
      expect(tampered.code).toBe('INVALID_CURSOR');
      const second = await send.list(actor, { limit: 1, state: 'closed', cursor: first.nextCursor! });
      expect(second.sessions[0].startedAt).toBe('2026-04-02T10:00:00.000Z');
      const reversed = await failure(send.list(actor, { from: '2026-04-02', to: '2026-04-01' }));
      expect([reversed.code, reversed.details]).toEqual(['VALIDATION_FAILED', [{ path: 'from', issue: 'from must not be after to' }]]);
    });

    it('reads from/to as calendar dates in the member time zone across the DST switches (Europe/Berlin), 503 until the zone is known (no UTC guess)', async () => {
      const actor = actorOf();
      const at = async (iso: string): Promise<SessionV1> =>
        send.start(actor, manual(iso, new Date(Date.parse(iso) + 60_000).toISOString()));
      // March 29, 2026 in Berlin (23 hours): [2026-03-28T23:00Z, 2026-03-29T22:00Z).
      const march = {
        before: await at('2026-03-28T22:59:59.999Z'),
        first: await at('2026-03-28T23:00:00.000Z'),
        switch: await at('2026-03-29T01:30:00.000Z'), // 03:30 CEST, just after 02:00 CET became 03:00
        last: await at('2026-03-29T21:59:59.999Z'),
        after: await at('2026-03-29T22:00:00.000Z'),
      };
      // October 25, 2026 in Berlin (25 hours): [2026-10-24T22:00Z, 2026-10-25T23:00Z).
      const october = {
        before: await at('2026-10-24T21:59:59.999Z'),
        first: await at('2026-10-24T22:00:00.000Z'),
        twiceFirst: await at('2026-10-25T00:30:00.000Z'), // 02:30 CEST
        twiceSecond: await at('2026-10-25T01:30:00.000Z'), // 02:30 CET, the repeated hour
        last: await at('2026-10-25T22:59:59.999Z'),
        after: await at('2026-10-25T23:00:00.000Z'),
      };
      const ids = async (from: string, to: string): Promise<string[]> =>
        (await send.list(actor, { from, to })).sessions.map((s) => s.sessionId).sort();
      const expected = (...sessions: SessionV1[]): string[] => sessions.map((s) => s.sessionId).sort();

      // Unknown to the projection and no profile carried: a retryable 503, never UTC days.
      expect((await failure(send.list(actor, { from: '2026-03-29', to: '2026-03-29' }))).code).toBe('UNAVAILABLE');
      // A profile carried with the command (the gateway resolved it with identity) answers at once.
      const carried = {
        ...actor,
        profile: {
          memberId: actor.memberId,
          workspaceId: actor.workspaceId,
          role: 'member' as const,
          timezone: 'Europe/Berlin',
          workingHours: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
          plateCapacity: 6,
          version: 1,
        },
      };
      expect((await send.list(carried, { from: '2026-03-29', to: '2026-03-29' })).sessions.map((s) => s.sessionId).sort()).toEqual(
        expected(march.first, march.switch, march.last),
      );

      const publisher = new MessagePublisher(kafka.client);
      await publisher.publish(
        MemberState,
        {
          memberId: actor.memberId,
          workspaceId: actor.workspaceId,
          kind: 'human',
          role: 'member',
          displayName: 'Berliner',
          email: null,
          timezone: 'Europe/Berlin',
          workingHours: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
          plateCapacity: 6,
          version: 2,
        },
        { key: actor.memberId },
      );
      await eventually(
        async () =>
          (
            await db.query<unknown[]>(`SELECT 1 FROM sessions.members WHERE member_id = $1 AND timezone = 'Europe/Berlin'`, [
              actor.memberId,
            ])
          ).length === 1,
        'the member projection',
      );
      expect(await ids('2026-03-29', '2026-03-29')).toEqual(expected(march.first, march.switch, march.last));
      expect(await ids('2026-03-28', '2026-03-28')).toEqual(expected(march.before));
      expect(await ids('2026-03-30', '2026-03-30')).toEqual(expected(march.after));
      expect(await ids('2026-10-25', '2026-10-25')).toEqual(expected(october.first, october.twiceFirst, october.twiceSecond, october.last));
      expect(await ids('2026-10-24', '2026-10-24')).toEqual(expected(october.before));
      expect(await ids('2026-10-26', '2026-10-26')).toEqual(expected(october.after));
      expect(await ids('2026-03-29', '2026-10-25')).toEqual(
        expected(
          march.first,
          march.switch,
          march.last,
          march.after,
          october.before,
          october.first,
          october.twiceFirst,
          october.twiceSecond,
          october.last,
        ),
      );
      // Only from, only to.
      expect((await send.list(actor, { from: '2026-10-26' })).sessions.map((s) => s.sessionId)).toEqual([october.after.sessionId]);
      expect((await send.list(actor, { to: '2026-03-28' })).sessions.map((s) => s.sessionId)).toEqual([march.before.sessionId]);
      // A carried profile older than the projection's (version 1 < 2) loses to it.
      const stale = { ...carried, profile: { ...carried.profile, timezone: 'Pacific/Kiritimati' } };
      expect((await send.list(stale, { from: '2026-03-29', to: '2026-03-29' })).sessions.map((s) => s.sessionId).sort()).toEqual(
        expected(march.first, march.switch, march.last),
      );
    });
  });

  describe('members projection', () => {
    it('rebuilds every member from identity.members after its table was emptied and the service restarted', async () => {
      const zones = ['Asia/Tokyo', 'Europe/Berlin', 'America/Lima', 'Pacific/Kiritimati', 'Australia/Adelaide'];
      const members = Array.from({ length: 15 }, (_, i) => ({ ...actorOf(), timezone: zones[i % zones.length] }));
      const publisher = new MessagePublisher(kafka.client);
      for (const m of members) {
        await publisher.publish(
          MemberState,
          {
            memberId: m.memberId,
            workspaceId: m.workspaceId,
            kind: 'human',
            role: 'member',
            displayName: 'm',
            email: null,
            timezone: m.timezone,
            workingHours: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
            plateCapacity: 6,
            version: 1,
          },
          { key: m.memberId },
        );
      }
      const zonesInDb = async (): Promise<Record<string, string>> =>
        Object.fromEntries(
          (
            await db.query<Array<{ member_id: string; timezone: string }>>(
              `SELECT member_id, timezone FROM sessions.members WHERE member_id = ANY($1)`,
              [members.map((m) => m.memberId)],
            )
          ).map((r) => [r.member_id, r.timezone]),
        );
      const expected = Object.fromEntries(members.map((m) => [m.memberId, m.timezone]));
      await eventually(async () => Object.keys(await zonesInDb()).length === members.length, 'the member projection');

      await db.query(`DELETE FROM sessions.members`);
      await app.close();
      const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}work-sessions.`;
      app = await startService(
        'sessions',
        SessionsAppModule,
        testConfig(SessionsConfig, { SESSION_SWEEP_INTERVAL_MS: '200', KAFKA_TOPIC_PREFIX: prefix }),
      );
      db = app.get(DataSource);
      // Right after start-up, without waiting: the replay ran before the service took commands.
      expect(await zonesInDb()).toEqual(expected);
      const day = DateTime.now().setZone(members[0].timezone).toISODate()!;
      await expect(send.list(actorOf(members[0].memberId, members[0].workspaceId), { from: day, to: day })).resolves.toMatchObject({
        sessions: [],
      });
    });
  });
});
