import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  allTopics,
  attestDelivery,
  CreateConnector,
  ErrorCode,
  GetWebhookSecret,
  ListDeliveries,
  newUnsealKey,
  ReceiveWebhook,
  sha256Hex,
  unsealSecret,
  webhookSecretSealContext,
  type ActorV1,
  type ReceiveWebhookV1,
} from '@worktrack/contracts';
import { CommandClient, DomainError, ensureTopics, startService } from '@worktrack/platform';
import { memberWithToken, ownNamespace, startAppProcess, testConfig, testKafka, type AppProcess, type TestKafka } from '@worktrack/testing';
import { ConnectorsConfig } from '../src/connectors.config';
import { ConnectorsAppModule } from '../src/app.module';

/**
 * ADR 0011 against real Kafka and Postgres: the connectors service hands a
 * webhook secret out only sealed to the requester's one-off key, and takes a
 * reduced delivery only with an edge attestation made with that secret —
 * never on the word of whoever can produce to connectors.commands.
 */
describe('connectors: edge verification contract (ADR 0011)', () => {
  let services: AppProcess[] = [];
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let env: Record<string, string> = {};
  let dropDatabase: (() => Promise<void>) | undefined;
  let rpc: CommandClient;
  let actor: ActorV1;
  let connectorId: string;
  const SECRET = 'edge-webhook-secret-1234';

  const rejection = async (p: Promise<unknown>): Promise<DomainError> => {
    try {
      await p;
    } catch (err) {
      if (err instanceof DomainError) return err;
      throw err;
    }
    throw new Error('expected a DomainError');
  };
  const reduced = (delivery: string): string =>
    JSON.stringify({
      ref: 'refs/heads/main',
      commits: [{ id: 'a'.repeat(40), distinct: true, timestamp: new Date().toISOString() }],
      head_commit: { id: 'a'.repeat(40), timestamp: new Date().toISOString() },
      repository: { full_name: 'acme/edge', name: 'edge' },
      pusher: { name: 'octo' },
      sender: { login: 'octo' },
      delivery,
    });
  const command = (delivery: string, body: string, secret: string, over: Partial<ReceiveWebhookV1> = {}): ReceiveWebhookV1 => {
    const raw = { rawSha256: sha256Hex(`original ${delivery}`), rawBytes: 25_000_000 };
    return {
      provider: 'github',
      connectorId,
      headers: { githubEvent: 'push', githubDelivery: delivery, contentType: 'application/json' },
      body,
      bodyEncoding: 'utf8',
      receivedAt: new Date().toISOString(),
      edge: { ...raw, mac: attestDelivery(secret, { provider: 'github', connectorId, deliveryId: delivery, ...raw, body }) },
      ...over,
    };
  };

  beforeAll(async () => {
    // A topic namespace and a database of its own (see connectors.int-spec.ts).
    const namespace = await ownNamespace('edge');
    ({ env, drop: dropDatabase } = namespace);
    kafka = testKafka('edge-it', env);
    await ensureTopics(await kafka.client.admin(), allTopics(), namespace.prefix);
    [services, app] = await Promise.all([
      Promise.all([startAppProcess('identity', env, 120_000), startAppProcess('ingestion', env, 120_000)]),
      startService('connectors', ConnectorsAppModule, testConfig(ConnectorsConfig, { ...env, WORK_POLL_INTERVAL_MS: '200' })),
    ]);
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 15_000 });
    await rpc.start();
    const run = randomUUID().slice(0, 8);
    const member = memberWithToken({ workspace: `edge-${run}`, email: `e-${run}@example.com` }, env);
    actor = { memberId: member.memberId, workspaceId: member.workspaceId, scope: 'full', credential: 'api_token' };
    const created = await rpc.send(CreateConnector, { actor, name: 'acme/edge', kind: 'github', secret: SECRET }, { key: actor.memberId });
    connectorId = created.connectorId;
  }, 300_000);

  afterAll(async () => {
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
    await Promise.all(services.map((s) => s.stop()));
    await dropDatabase?.();
  });

  it('hands the secret out only sealed to the requester’s key, bound to the connector', async () => {
    const key = newUnsealKey();
    const sealed = await rpc.send(GetWebhookSecret, { provider: 'github', connectorId, publicKey: key.publicKey }, { key: connectorId });
    expect(JSON.stringify(sealed)).not.toContain(SECRET);
    expect(unsealSecret(sealed, key, webhookSecretSealContext('github', connectorId))).toBe(SECRET);
    expect(() => unsealSecret(sealed, newUnsealKey(), webhookSecretSealContext('github', connectorId))).toThrow();

    const ask = (over: object) =>
      rpc.send(GetWebhookSecret, { provider: 'github', connectorId, publicKey: key.publicKey, ...over }, { key: connectorId });
    expect((await rejection(ask({ provider: 'slack' }))).code).toBe(ErrorCode.NOT_FOUND);
    expect((await rejection(ask({ connectorId: randomUUID() }))).code).toBe(ErrorCode.NOT_FOUND);
    expect((await rejection(ask({ publicKey: 'bm90IGEga2V5' }))).code).toBe(ErrorCode.VALIDATION_FAILED);
  });

  it('accepts a reduced delivery with a valid attestation; a forged, moved or altered one is 401 and logs nothing', async () => {
    const delivery = randomUUID();
    const body = reduced(delivery);
    const ack = await rpc.send(ReceiveWebhook, command(delivery, body, SECRET), { key: connectorId });
    expect(ack.outcome).toBe('accepted');

    const forgedDelivery = randomUUID();
    const attempts: ReceiveWebhookV1[] = [
      command(forgedDelivery, reduced(forgedDelivery), 'not-the-secret'),
      // an attestation made for one delivery, replayed under another delivery id
      { ...command(delivery, body, SECRET), headers: { githubEvent: 'push', githubDelivery: forgedDelivery } },
      // the body changed after attesting
      { ...command(forgedDelivery, reduced(forgedDelivery), SECRET), body: reduced('tampered') },
      // the attested form is text only
      { ...command(forgedDelivery, reduced(forgedDelivery), SECRET), bodyEncoding: 'base64' },
      // Slack deliveries are never reduced
      { ...command(forgedDelivery, reduced(forgedDelivery), SECRET), provider: 'slack' },
    ];
    for (const attempt of attempts) {
      const err = await rejection(rpc.send(ReceiveWebhook, attempt, { key: connectorId }));
      expect([attempt.headers.githubDelivery, err.code]).toEqual([
        attempt.headers.githubDelivery,
        attempt.provider === 'slack' ? ErrorCode.NOT_FOUND : ErrorCode.UNAUTHENTICATED,
      ]);
    }
    const log = (await rpc.send(ListDeliveries, { actor, connectorId, limit: 100 }, { key: actor.memberId })).deliveries;
    expect(log.map((d) => d.providerDeliveryId)).toEqual([delivery]);
  });
});
