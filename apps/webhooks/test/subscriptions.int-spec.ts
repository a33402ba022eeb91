import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { allTopics, type ActorV1, type SessionChangedV1 } from '@worktrack/contracts';
import { ensureTopics, startService } from '@worktrack/platform';
import { eventually, ownNamespace, testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { WebhooksAppModule } from '../src/app.module';
import { EndpointsService } from '../src/endpoints/endpoints.service';
import { MessagesService } from '../src/messages/messages.service';
import { webhookIdOf } from '../src/messages/source-events';
import { WebhooksConfig } from '../src/webhooks.config';
import { LISTENER_APPLICATION_NAME, WebhooksRepository } from '../src/webhooks.repository';

const week = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };

/**
 * The subscription index (D-54) across two replicas on one real database:
 * endpoint writes on A are known to B through the trigger's notifications,
 * exactly (a change B handles right after A acknowledged the write is
 * never skipped), and a batch whose workspaces subscribe to nothing runs
 * no statement.
 */
describe('webhook subscriptions across replicas (D-54)', () => {
  let kafka: TestKafka;
  let a: NestFastifyApplication;
  let b: NestFastifyApplication;
  let db: DataSource;
  let dropDatabase: (() => Promise<void>) | undefined;
  let fanOuts: jest.SpyInstance;

  const owner = (workspaceId: string): ActorV1 => {
    const memberId = randomUUID();
    return {
      memberId,
      workspaceId,
      scope: 'full',
      credential: 'api_token',
      profile: { memberId, workspaceId, role: 'owner', timezone: 'UTC', workingHours: week, plateCapacity: 6, version: 1 },
    };
  };
  const create = (app: NestFastifyApplication, workspaceId: string, eventTypes: string[]) =>
    app.get(EndpointsService).create({ actor: owner(workspaceId), url: 'http://127.0.0.1:9/hook', eventTypes });
  const paused = (workspaceId: string): SessionChangedV1 => ({
    change: 'paused',
    sessionId: randomUUID(),
    memberId: randomUUID(),
    workspaceId,
    source: 'timer',
    state: 'paused',
    startedAt: new Date(Date.now() - 60_000).toISOString(),
    closedAt: null,
    closedReason: null,
    revision: 2,
    changedAt: new Date().toISOString(),
  });
  /** The deliveries stored for a change's `session.paused` message. */
  const deliveriesOf = async (change: SessionChangedV1): Promise<number> => {
    const id = webhookIdOf(`session:${change.sessionId}:${change.revision}:session.paused`);
    const rows = await db.query<Array<{ n: string }>>('SELECT count(*) AS n FROM webhooks.deliveries WHERE webhook_id = $1', [id]);
    return Number(rows[0].n);
  };
  const listeners = async (): Promise<number> => {
    const rows = await db.query<Array<{ n: string }>>(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [LISTENER_APPLICATION_NAME],
    );
    return Number(rows[0].n);
  };

  beforeAll(async () => {
    const namespace = await ownNamespace('webhooks_subs');
    dropDatabase = namespace.drop;
    kafka = testKafka('webhooks-subs-it', namespace.env);
    await ensureTopics(await kafka.client.admin(), allTopics(), namespace.prefix);
    const config = () =>
      testConfig(WebhooksConfig, {
        ...namespace.env,
        FEED_ALLOW_PRIVATE_HOSTS: 'true',
        WEBHOOK_RETRY_SCHEDULE_MS: '0,60000',
        WEBHOOK_RETRY_JITTER: '0',
      });
    a = await startService('webhooks', WebhooksAppModule, config());
    b = await startService('webhooks', WebhooksAppModule, config());
    db = a.get(DataSource);
    await eventually(async () => (await listeners()) === 2, 'both replicas listening');
    fanOuts = jest.spyOn(b.get(WebhooksRepository), 'fanOut');
  });

  afterAll(async () => {
    fanOuts?.mockRestore();
    await kafka?.close();
    await a?.close();
    await b?.close();
    await dropDatabase?.();
  });

  beforeEach(() => fanOuts.mockClear());

  it('a change B handles right after A created an endpoint reaches it, every time', async () => {
    for (let i = 0; i < 25; i++) {
      const workspaceId = randomUUID();
      await create(a, workspaceId, ['session.paused']);
      const change = paused(workspaceId);
      await b.get(MessagesService).sessions([change]);
      expect(await deliveriesOf(change)).toBe(1);
    }
  });

  it('a batch whose workspaces subscribe to nothing (or not to its type) runs no statement on B', async () => {
    const elsewhere = paused(randomUUID());
    await b.get(MessagesService).sessions([elsewhere]);
    expect(fanOuts).not.toHaveBeenCalled();
    expect(await deliveriesOf(elsewhere)).toBe(0);

    // A notified workspace counts as subscribed to everything until B has read its row.
    const subscribed = randomUUID();
    await create(a, subscribed, ['session.closed']);
    const otherType = paused(subscribed);
    await eventually(async () => {
      fanOuts.mockClear();
      await b.get(MessagesService).sessions([paused(randomUUID()), otherType]);
      return fanOuts.mock.calls.length === 0;
    }, "B reading the new endpoint's types");
    expect(await deliveriesOf(otherType)).toBe(0);
  });

  it("A's type change, disabling and enabling again are B's at once", async () => {
    const workspaceId = randomUUID();
    const endpoint = await create(a, workspaceId, ['session.closed']);
    const endpoints = a.get(EndpointsService);
    const actor = owner(workspaceId);
    await endpoints.update({ actor, endpointId: endpoint.endpointId, eventTypes: ['session.paused'] });
    const afterTypes = paused(workspaceId);
    await b.get(MessagesService).sessions([afterTypes]);
    expect(await deliveriesOf(afterTypes)).toBe(1);

    await endpoints.update({ actor, endpointId: endpoint.endpointId, enabled: false });
    const whileDisabled = paused(workspaceId);
    await b.get(MessagesService).sessions([whileDisabled]);
    expect(await deliveriesOf(whileDisabled)).toBe(0);

    await endpoints.update({ actor, endpointId: endpoint.endpointId, enabled: true });
    const enabledAgain = paused(workspaceId);
    await b.get(MessagesService).sessions([enabledAgain]);
    expect(await deliveriesOf(enabledAgain)).toBe(1);

    // Once B has read the disabled endpoint's row, its workspace's batches skip the statement again.
    await endpoints.remove(actor, endpoint.endpointId);
    await eventually(async () => {
      fanOuts.mockClear();
      await b.get(MessagesService).sessions([paused(workspaceId)]);
      return fanOuts.mock.calls.length === 0;
    }, "B skipping the deleted endpoint's workspace");
  });

  it('while the LISTEN connection is down nothing is skipped; once back, the index is read again in full', async () => {
    await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [
      LISTENER_APPLICATION_NAME,
    ]);
    // Created while nobody listens: no notification reaches B.
    const workspaceId = randomUUID();
    await create(a, workspaceId, ['session.paused']);
    const meanwhile = paused(workspaceId);
    await b.get(MessagesService).sessions([meanwhile]);
    expect(await deliveriesOf(meanwhile)).toBe(1);

    await eventually(async () => (await listeners()) === 2, 'both replicas listening again');
    const later = paused(workspaceId);
    await b.get(MessagesService).sessions([later]);
    expect(await deliveriesOf(later)).toBe(1);
    await eventually(async () => {
      fanOuts.mockClear();
      await b.get(MessagesService).sessions([paused(randomUUID())]);
      return fanOuts.mock.calls.length === 0;
    }, 'B skipping unsubscribed batches again');
    const created = randomUUID();
    await create(a, created, ['session.paused']);
    const afterReconnect = paused(created);
    await b.get(MessagesService).sessions([afterReconnect]);
    expect(await deliveriesOf(afterReconnect)).toBe(1);
  });
});
