import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import {
  allTopics,
  AssignPlateItem,
  CloseSession,
  CreateWebhookEndpoint,
  DeleteWebhookEndpoint,
  GetWebhookEndpoint,
  ListWebhookAttempts,
  ListWebhookEndpoints,
  MemberChanged,
  MemberState,
  PauseSession,
  RecoverWebhookMessages,
  ReplayWebhookMessage,
  RotateWebhookSecret,
  SessionChanged,
  StartSession,
  TestWebhookEndpoint,
  UpdateWebhookEndpoint,
  type ActorV1,
  type MemberV1,
  type SessionChangedV1,
  type WebhookEndpointV1,
} from '@worktrack/contracts';
import { CommandClient, DomainError, ensureTopics, startService } from '@worktrack/platform';
import {
  eventually,
  MessagePublisher,
  ownNamespace,
  startAppProcess,
  testConfig,
  testKafka,
  type AppProcess,
  type TestKafka,
} from '@worktrack/testing';
import { WebhooksAppModule } from '../src/app.module';
import { WebhooksConfig } from '../src/webhooks.config';

/** What a receiver got: the verified body and the headers of every request. */
interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  at: number;
}

/** A real HTTP receiver started by the test; `answer` decides each response (by the request's number, 1-based). */
class Receiver {
  readonly received: Received[] = [];
  private server!: Server;
  url = '';

  constructor(
    private answer: (n: number, req: IncomingMessage, res: ServerResponse) => void = (_n, _req, res) => void res.writeHead(204).end(),
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({
          id: String(req.headers['webhook-id']),
          timestamp: String(req.headers['webhook-timestamp']),
          signature: String(req.headers['webhook-signature']),
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        this.answer(this.received.length, req, res);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  answerWith(answer: (n: number, req: IncomingMessage, res: ServerResponse) => void): void {
    this.answer = answer;
  }

  /** Every request verifies with the standardwebhooks library against `secret`. */
  verifiedWith(secret: string, r: Received): unknown {
    return new Webhook(secret).verify(r.body, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const week = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };

/** Webhooks on the real broker and database, fed by the real sessions and plate services, delivering to receivers the test runs. */
describe('webhooks (D-53 … D-56)', () => {
  let kafka: TestKafka;
  let rpc: CommandClient;
  let publisher: MessagePublisher;
  let app: NestFastifyApplication;
  let services: AppProcess[] = [];
  let dropDatabase: (() => Promise<void>) | undefined;
  let db: DataSource;
  const receivers: Receiver[] = [];
  const workspace = randomUUID();
  const ownerId = randomUUID();

  const profile = (memberId: string, role: 'owner' | 'admin' | 'member') => ({
    memberId,
    workspaceId: workspace,
    role,
    timezone: 'UTC',
    workingHours: week,
    plateCapacity: 6,
    version: 1,
  });
  const actorOf = (memberId: string, role: 'owner' | 'admin' | 'member' = 'owner'): ActorV1 => ({
    memberId,
    workspaceId: workspace,
    scope: 'full',
    credential: 'api_token',
    profile: profile(memberId, role),
  });
  const owner = actorOf(ownerId);
  const receiver = async (answer?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> => {
    const r = await new Receiver(answer).start();
    receivers.push(r);
    return r;
  };
  const register = (url: string, eventTypes: string[], actor: ActorV1 = owner) =>
    rpc.send(CreateWebhookEndpoint, { actor, url, eventTypes }, { key: actor.memberId });
  const failure = async (promise: Promise<unknown>): Promise<DomainError> => {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
    return err;
  };
  const attempts = (endpointId: string, cursor?: string) =>
    rpc.send(ListWebhookAttempts, { actor: owner, endpointId, limit: 100, ...(cursor ? { cursor } : {}) }, { key: ownerId });
  /** A member starts a timer session through the sessions service (its outbox publishes the change). */
  const startTimer = (memberId: string) =>
    rpc.send(
      StartSession,
      { actor: actorOf(memberId, 'member'), requestedAt: new Date().toISOString(), intentText: 'work', source: 'timer' },
      { key: memberId },
    );
  const typeOf = (r: Received): string => (JSON.parse(r.body) as { type: string }).type;

  beforeAll(async () => {
    // A topic namespace and a database of its own; sessions and plate run as the built apps (processes).
    const namespace = await ownNamespace('webhooks');
    const env = namespace.env;
    dropDatabase = namespace.drop;
    kafka = testKafka('webhooks-it', env);
    await ensureTopics(await kafka.client.admin(), allTopics(), namespace.prefix);
    [services, app] = await Promise.all([
      Promise.all([startAppProcess('sessions', env), startAppProcess('plate', env)]),
      startService(
        'webhooks',
        WebhooksAppModule,
        testConfig(WebhooksConfig, {
          ...env,
          FEED_ALLOW_PRIVATE_HOSTS: 'true', // the receivers are on loopback, plain http
          WEBHOOK_RETRY_SCHEDULE_MS: '0,300,300',
          WEBHOOK_RETRY_JITTER: '0',
          WEBHOOK_POLL_INTERVAL_MS: '100',
          WEBHOOK_CIRCUIT_FAILURES: '1000',
        }),
      ),
    ]);
    db = app.get(DataSource);
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 15_000 });
    await rpc.start();
    publisher = new MessagePublisher(kafka.client);
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
    await Promise.all(services.map((s) => s.stop()));
    await dropDatabase?.();
  });

  describe('endpoints (D-53)', () => {
    it('creates with a whsec_ secret shown once, lists, reads, updates and deletes', async () => {
      const created = await register('https://hooks.example.com/a', ['session.started', 'member.joined']);
      expect(created).toMatchObject({ url: 'https://hooks.example.com/a', enabled: true, disabledReason: null, description: null });
      expect(Buffer.from(created.secret!.replace(/^whsec_/, ''), 'base64')).toHaveLength(32);
      const read = await rpc.send(GetWebhookEndpoint, { actor: owner, endpointId: created.endpointId }, { key: ownerId });
      expect(read.secret).toBeUndefined();
      const listed = await rpc.send(ListWebhookEndpoints, { actor: owner, limit: 100 }, { key: ownerId });
      expect(listed.endpoints.map((e) => e.endpointId)).toContain(created.endpointId);
      const updated = await rpc.send(
        UpdateWebhookEndpoint,
        { actor: owner, endpointId: created.endpointId, eventTypes: ['session.closed'], description: 'ops', enabled: false },
        { key: ownerId },
      );
      expect(updated).toMatchObject({
        eventTypes: ['session.closed'],
        description: 'ops',
        enabled: false,
        disabledReason: 'disabled by a member',
      });
      await rpc.send(DeleteWebhookEndpoint, { actor: owner, endpointId: created.endpointId }, { key: ownerId });
      expect((await failure(rpc.send(GetWebhookEndpoint, { actor: owner, endpointId: created.endpointId }, { key: ownerId }))).code).toBe(
        'NOT_FOUND',
      );
    });

    it('refuses plain members (403) and hides other workspaces (404)', async () => {
      expect((await failure(register('https://hooks.example.com/m', ['session.started'], actorOf(randomUUID(), 'member')))).code).toBe(
        'FORBIDDEN',
      );
      const mine = await register('https://hooks.example.com/b', ['session.started']);
      const stranger: ActorV1 = { ...owner, workspaceId: randomUUID(), profile: { ...owner.profile!, workspaceId: randomUUID() } };
      expect((await failure(rpc.send(GetWebhookEndpoint, { actor: stranger, endpointId: mine.endpointId }, { key: ownerId }))).code).toBe(
        'NOT_FOUND',
      );
      expect(
        (await failure(rpc.send(DeleteWebhookEndpoint, { actor: stranger, endpointId: mine.endpointId }, { key: ownerId }))).code,
      ).toBe('NOT_FOUND');
      await rpc.send(DeleteWebhookEndpoint, { actor: owner, endpointId: mine.endpointId }, { key: ownerId });
    });

    it('400 with details: an unknown event type, none, 101 of them, a URL with user info', async () => {
      const unknown = await failure(register('https://hooks.example.com/c', ['session.started', 'session.*']));
      expect(unknown.code).toBe('VALIDATION_FAILED');
      expect(unknown.details).toEqual([{ path: 'event_types[1]', issue: expect.stringContaining('unknown event type') as string }]);
      expect((await failure(register('https://hooks.example.com/c', []))).details).toEqual([
        { path: 'event_types', issue: 'must name at least one event type' },
      ]);
      const many = await failure(
        register(
          'https://hooks.example.com/c',
          Array.from({ length: 101 }, () => 'session.started'),
        ),
      );
      expect(many.details).toEqual(expect.arrayContaining([{ path: 'event_types', issue: 'must name at most 50 event types' }]));
      expect((await failure(register('https://user:pw@hooks.example.com/c', ['session.started']))).details).toEqual([
        { path: 'url', issue: 'must not contain user info' },
      ]);
    });
  });

  describe('delivery (D-54, D-55)', () => {
    it('a receiver that fails twice then succeeds: one message, three attempts, the same webhook-id, each signed', async () => {
      const flaky = await receiver((n, _req, res) => void res.writeHead(n <= 2 ? 500 : 200).end());
      const endpoint = await register(flaky.url, ['session.started']);
      const member = randomUUID();
      const session = await startTimer(member);
      await eventually(() => flaky.received.length >= 3, 'three attempts');
      await new Promise((r) => setTimeout(r, 700));
      expect(flaky.received).toHaveLength(3);
      expect(new Set(flaky.received.map((r) => r.id)).size).toBe(1);
      expect(new Set(flaky.received.map((r) => r.body)).size).toBe(1);
      for (const r of flaky.received) flaky.verifiedWith(endpoint.secret!, r);
      expect(JSON.parse(flaky.received[0].body)).toEqual({
        type: 'session.started',
        timestamp: expect.any(String) as string,
        data: expect.objectContaining({
          session_id: session.sessionId,
          state: 'active',
          source: 'timer',
          member_id: member,
          workspace_id: workspace,
        }) as object,
      });
      await eventually(async () => (await attempts(endpoint.endpointId)).attempts.length === 3, 'the log');
      const log = (await attempts(endpoint.endpointId)).attempts;
      expect(log.map((a) => [a.outcome, a.statusCode])).toEqual([
        ['succeeded', 200],
        ['failed', 500],
        ['failed', 500],
      ]);
      expect(log[0].nextAttemptAt).toBeNull();
      expect(log[1].nextAttemptAt).not.toBeNull();
      expect(new Set(log.map((a) => a.webhookId))).toEqual(new Set([flaky.received[0].id]));

      // D-56: replay sends it again, same id and body.
      expect(await rpc.send(ReplayWebhookMessage, { actor: owner, webhookId: flaky.received[0].id }, { key: ownerId })).toMatchObject({
        messages: 1,
      });
      await eventually(() => flaky.received.length === 4, 'the replay');
      expect(flaky.received[3].id).toBe(flaky.received[0].id);
      expect(flaky.received[3].body).toBe(flaky.received[0].body);
    });

    it('the same source event consumed twice makes one message', async () => {
      const seen = await receiver();
      await register(seen.url, ['session.paused']);
      const change: SessionChangedV1 = {
        change: 'paused',
        sessionId: randomUUID(),
        memberId: randomUUID(),
        workspaceId: workspace,
        source: 'timer',
        state: 'paused',
        startedAt: new Date(Date.now() - 60_000).toISOString(),
        closedAt: null,
        closedReason: null,
        revision: 2,
        changedAt: new Date().toISOString(),
      };
      await publisher.publish(SessionChanged, change, { key: change.memberId });
      await publisher.publish(SessionChanged, change, { key: change.memberId });
      await eventually(() => seen.received.length >= 1, 'the message');
      await new Promise((r) => setTimeout(r, 1_000));
      expect(seen.received).toHaveLength(1);
    });

    it('session.paused and session.closed through the sessions service; every close, whatever closed it', async () => {
      const r = await receiver();
      const endpoint = await register(r.url, ['session.paused', 'session.closed']);
      const member = randomUUID();
      const first = await startTimer(member);
      await rpc.send(PauseSession, { actor: actorOf(member, 'member'), sessionId: first.sessionId }, { key: member });
      // A new timer closes the paused one (D-23); then the new one is closed by request.
      const second = await startTimer(member);
      await rpc.send(CloseSession, { actor: actorOf(member, 'member'), sessionId: second.sessionId }, { key: member });
      await eventually(() => r.received.length >= 3, 'three messages');
      const got = r.received.map((m) => [typeOf(m), (JSON.parse(m.body) as { data: { session_id: string } }).data.session_id]);
      expect(got).toEqual(
        expect.arrayContaining([
          ['session.paused', first.sessionId],
          ['session.closed', first.sessionId],
          ['session.closed', second.sessionId],
        ]),
      );
      for (const m of r.received) r.verifiedWith(endpoint.secret!, m);
    });

    it('plate.item.assigned with overflowed, member.joined and member.deactivated', async () => {
      const r = await receiver();
      const endpoint = await register(r.url, ['plate.item.assigned', 'member.joined', 'member.deactivated']);
      const assignee: MemberV1 = {
        memberId: randomUUID(),
        workspaceId: workspace,
        kind: 'human',
        role: 'member',
        displayName: 'Ada',
        email: null,
        timezone: 'UTC',
        workingHours: { ...week, mon: [{ start: '09:00', end: '17:00' }], tue: [{ start: '09:00', end: '17:00' }] },
        plateCapacity: 6,
        version: 1,
      };
      await publisher.publish(MemberState, assignee, { key: assignee.memberId });
      await publisher.publish(MemberChanged, assignee, { key: assignee.memberId });
      const assigned = await rpc.send(
        AssignPlateItem,
        { actor: owner, assigneeId: assignee.memberId, title: 'review', assignee: profile(assignee.memberId, 'member') },
        { key: ownerId },
      );
      await publisher.publish(MemberChanged, { ...assignee, version: 2, active: false }, { key: assignee.memberId });
      await eventually(() => r.received.length >= 3, 'three messages');
      const byType = Object.fromEntries(r.received.map((m) => [typeOf(m), JSON.parse(m.body) as { data: Record<string, unknown> }]));
      expect(byType['member.joined'].data).toMatchObject({ member_id: assignee.memberId, workspace_id: workspace, display_name: 'Ada' });
      expect(byType['member.deactivated'].data).toMatchObject({ member_id: assignee.memberId, active: false });
      expect(byType['plate.item.assigned'].data).toMatchObject({
        plate_item_id: assigned.plateItemId,
        overflowed: assigned.overflowed,
        member_id: assignee.memberId,
        workspace_id: workspace,
      });
      for (const m of r.received) r.verifiedWith(endpoint.secret!, m);
    });

    it('410 disables the endpoint after one attempt', async () => {
      const gone = await receiver((_n, _req, res) => void res.writeHead(410).end());
      const endpoint = await register(gone.url, ['session.started']);
      await startTimer(randomUUID());
      await eventually(
        async () => !(await rpc.send(GetWebhookEndpoint, { actor: owner, endpointId: endpoint.endpointId }, { key: ownerId })).enabled,
        'disabled',
      );
      const now = await rpc.send(GetWebhookEndpoint, { actor: owner, endpointId: endpoint.endpointId }, { key: ownerId });
      expect(now.disabledReason).toBe('the endpoint answered 410 Gone');
      await startTimer(randomUUID());
      await new Promise((r) => setTimeout(r, 800));
      expect(gone.received).toHaveLength(1);
    });

    it('a redirect is not followed: a 3xx is a failed attempt', async () => {
      const target = await receiver();
      const redirecting = await receiver((_n, _req, res) => void res.writeHead(302, { location: target.url }).end());
      const endpoint = await register(redirecting.url, ['session.started']);
      await startTimer(randomUUID());
      await eventually(async () => (await attempts(endpoint.endpointId)).attempts.length >= 1, 'the attempt');
      expect((await attempts(endpoint.endpointId)).attempts.at(-1)).toMatchObject({ statusCode: 302, outcome: 'failed' });
      await new Promise((r) => setTimeout(r, 300));
      expect(target.received).toHaveLength(0);
      await rpc.send(DeleteWebhookEndpoint, { actor: owner, endpointId: endpoint.endpointId }, { key: ownerId });
    });

    it('a hanging endpoint never delays another: the fast one gets every message at once', async () => {
      const hang = await receiver(() => undefined); // never answers
      const fast = await receiver();
      await register(hang.url, ['session.started']);
      await register(fast.url, ['session.started']);
      const before = fast.received.length;
      const started = Date.now();
      for (let i = 0; i < 10; i++) await startTimer(randomUUID());
      await eventually(() => fast.received.length >= before + 10, 'ten deliveries to the fast endpoint', 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      // The hanging endpoint holds at most its concurrency, never more.
      expect(hang.received.length).toBeLessThanOrEqual(4);
    });

    it('a 503 with Retry-After holds the next attempt back', async () => {
      const busy = await receiver(
        (n, _req, res) => void (n === 1 ? res.writeHead(503, { 'retry-after': '2' }).end() : res.writeHead(200).end()),
      );
      await register(busy.url, ['session.started']);
      await startTimer(randomUUID());
      await eventually(() => busy.received.length >= 2, 'the retry', 6_000);
      expect(busy.received[1].at - busy.received[0].at).toBeGreaterThanOrEqual(1_900);
    });

    it('rotation: both secrets sign during the overlap; a test message is signed', async () => {
      const r = await receiver();
      const endpoint = await register(r.url, ['session.started']);
      const rotated = await rpc.send(RotateWebhookSecret, { actor: owner, endpointId: endpoint.endpointId }, { key: ownerId });
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(endpoint.secret);
      const { webhookId } = await rpc.send(TestWebhookEndpoint, { actor: owner, endpointId: endpoint.endpointId }, { key: ownerId });
      await eventually(() => r.received.some((m) => m.id === webhookId), 'the test message');
      const message = r.received.find((m) => m.id === webhookId)!;
      expect(typeOf(message)).toBe('webhook.test');
      expect(message.signature.split(' ')).toHaveLength(2);
      r.verifiedWith(rotated.secret!, message);
      r.verifiedWith(endpoint.secret!, message);
      expect(() => r.verifiedWith(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, message)).toThrow();
    });

    it('recover re-sends every message since a time whose latest attempt failed', async () => {
      const down = await receiver((_n, _req, res) => void res.writeHead(500).end());
      const endpoint = await register(down.url, ['session.started']);
      const since = new Date(Date.now() - 1_000).toISOString();
      await startTimer(randomUUID());
      await startTimer(randomUUID());
      // Three attempts each (the test schedule), then failed for good.
      await eventually(() => down.received.length >= 6, 'every attempt');
      await eventually(
        async () =>
          Number(
            (
              await db.query<Array<{ n: string }>>(
                `SELECT count(*) AS n FROM webhooks.deliveries WHERE endpoint_id = $1 AND state = 'failed'`,
                [endpoint.endpointId],
              )
            )[0].n,
          ) === 2,
        'given up',
      );
      down.answerWith((_n, _req, res) => void res.writeHead(200).end());
      expect(
        await rpc.send(RecoverWebhookMessages, { actor: owner, endpointId: endpoint.endpointId, since }, { key: ownerId }),
      ).toMatchObject({ messages: 2 });
      await eventually(() => down.received.length >= 8, 'the recovered messages');
      const ids = new Set(down.received.map((m) => m.id));
      expect(ids.size).toBe(2);
      // An attempt is logged after its answer arrives, so the log catches up with the receiver.
      await eventually(async () => (await attempts(endpoint.endpointId)).attempts.length === 8, 'every attempt logged');
      // The log pages newest first with a cursor (D-56).
      const first = await rpc.send(ListWebhookAttempts, { actor: owner, endpointId: endpoint.endpointId, limit: 5 }, { key: ownerId });
      const second = await attempts(endpoint.endpointId, first.nextCursor!);
      expect(first.attempts).toHaveLength(5);
      expect(second.attempts).toHaveLength(3);
      expect(first.attempts[0].outcome).toBe('succeeded');
    });
  });

  it('keeps a type per endpoint (no wildcards): an endpoint gets only what it names', async () => {
    const r = await receiver();
    const endpoint: WebhookEndpointV1 = await register(r.url, ['session.closed']);
    await startTimer(randomUUID());
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(r.received).toHaveLength(0);
    expect((await attempts(endpoint.endpointId)).attempts).toHaveLength(0);
  });
});
