import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { allTopics, Topics } from '@worktrack/contracts';
import { AppConfig, createLogger, ensureTopics, KafkaClient, loadConfig } from '@worktrack/platform';
import { collectOutput, freePort, freePortPair, mainOf, memberWithToken, repoRoot, startAppProcess, testKafka } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

// Availability under faults, the short in-suite variants: each
// test is well under a minute. The broker-down tests run on a broker of their
// own (scripts/infra.sh on a free port and a temporary directory), never on
// the run's shared broker.

const JWT_SECRET = `e2e-${randomUUID()}`;
const run = randomUUID().slice(0, 8);
const TIMEOUT_MS = 3_000;

/** Two consecutive free ports (the broker's and its controller's). */

/** An app process that is not waited for (it may not be ready for a while). */
interface Spawned {
  url: string;
  child: ChildProcess;
  output: () => string;
}

async function spawnApp(app: string, env: Record<string, string>): Promise<Spawned> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--enable-source-maps', mainOf(app)], {
    cwd: repoRoot(),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      MIGRATE_ON_START: 'true',
      SHUTDOWN_TIMEOUT_MS: '10000',
      INSTANCE_ID: `${app}-${port}`,
      JWT_SECRET,
      UNAUTH_RATE_LIMIT_PER_MINUTE: '1000000', // other test files' refusals from 127.0.0.1 share Redis (see app-process.ts)
      ...env,
      HTTP_PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { url: `http://127.0.0.1:${port}`, child, output: collectOutput(child).output };
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const readyz = (url: string): Promise<number> => fetch(`${url}/readyz`).then((r) => r.status);
const stopChild = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

describe('availability with the broker away', () => {
  let brokerPort: number;
  let kafkaDir: string;
  let brokers: string;
  const apps: Spawned[] = [];
  const infra = (cmd: string) =>
    spawnSync('bash', [join(repoRoot(), 'scripts', 'infra.sh'), cmd], {
      encoding: 'utf8',
      env: { ...process.env, KAFKA_PORT: String(brokerPort), KAFKA_DIR: kafkaDir, KAFKA_BROKERS: '' },
      timeout: 120_000,
    });

  beforeAll(async () => {
    brokerPort = await freePortPair();
    kafkaDir = mkdtempSync(join(tmpdir(), 'wt-avail-kafka-'));
    brokers = `127.0.0.1:${brokerPort}`;
  });

  afterAll(async () => {
    await Promise.all(apps.map((a) => stopChild(a.child)));
    infra('kafka-down');
    rmSync(kafkaDir, { recursive: true, force: true });
  });

  it('a service started before Kafka is up is alive, not ready, and becomes ready once Kafka is, without exiting', async () => {
    const ingestion = await spawnApp('ingestion', { KAFKA_BROKERS: brokers });
    const identity = await spawnApp('identity', { KAFKA_BROKERS: brokers });
    apps.push(ingestion, identity);

    await until('the service listening for probes', 20_000, async () =>
      (await fetch(`${ingestion.url}/healthz`)).status === 200 ? true : undefined,
    );
    // Not ready, naming what it waits for (once its first check has failed), with Retry-After.
    const res = await until('readiness naming kafka', 20_000, async () => {
      const r = await fetch(`${ingestion.url}/readyz`);
      const body = (await r.json()) as ErrorBody;
      return body.error?.details?.some((d) => d.path === 'kafka')
        ? { status: r.status, retryAfter: r.headers.get('retry-after'), body }
        : undefined;
    });
    expect(res.status).toBe(503);
    expect(res.retryAfter).toBe('1');
    expect(res.body.error.code).toBe('UNAVAILABLE');
    await until('the wait logged', 10_000, () =>
      Promise.resolve(ingestion.output().includes('"msg":"waiting for kafka"') ? true : undefined),
    );

    const up = infra('kafka-up');
    expect({ status: up.status, stderr: up.status === 0 ? '' : up.stderr }).toEqual({ status: 0, stderr: '' });
    const config = loadConfig(AppConfig, { ...process.env, KAFKA_BROKERS: brokers });
    const setup = new KafkaClient('e2e-setup', config, createLogger('e2e-setup', 'warn', 'e2e-setup'));
    try {
      await ensureTopics(await setup.admin(), allTopics(), config.KAFKA_TOPIC_PREFIX);
    } finally {
      await setup.close();
    }
    const brokerBack = Date.now();
    await until('both services ready', 45_000, async () =>
      (await readyz(ingestion.url)) === 200 && (await readyz(identity.url)) === 200 ? true : undefined,
    );
    expect(Date.now() - brokerBack).toBeLessThan(45_000);
    expect(ingestion.child.exitCode).toBeNull();
    expect(ingestion.output()).toContain('"msg":"dependencies answer; starting"');
  }, 180_000); // its own waits add up to ~140 s at worst on a loaded machine

  it('the gateway answers 503 UNAVAILABLE with Retry-After within its bound while the broker is down (D-2), and recovers by itself', async () => {
    const gateway = await spawnApp('gateway', { KAFKA_BROKERS: brokers, REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });
    apps.push(gateway);
    await until('the gateway ready', 45_000, async () => ((await readyz(gateway.url)) === 200 ? true : undefined));
    const member = memberWithToken({ workspace: `av-${run}`, email: `av-${run}@example.com` });
    const post = () =>
      call(gateway.url, 'POST', '/v1/activity/events', { token: member.token, body: { events: [{ event_type: 'deploy' }] } });
    expect((await post()).status).toBe(202);

    // The broker dies (kill -9): the gateway's answers keep their bound.
    const pid = spawnSync('cat', [join(kafkaDir, 'kafka.pid')], { encoding: 'utf8' }).stdout.trim();
    process.kill(Number(pid), 'SIGKILL');
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await post();
      const elapsed = Date.now() - started;
      expect(res.status).toBe(503);
      expect((res.body as unknown as ErrorBody).error.code).toBe('UNAVAILABLE');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 1_500);
    }
    await until('the gateway not ready', 15_000, async () => ((await readyz(gateway.url)) === 503 ? true : undefined));

    // The broker comes back on the same data (infra.sh waits for the old process): requests succeed again by themselves.
    const up = infra('kafka-up');
    expect(up.status).toBe(0);
    const brokerBack = Date.now();
    await until('a request accepted again', 40_000, async () => ((await post()).status === 202 ? true : undefined));
    process.stdout.write(`[availability] requests succeed again ${Date.now() - brokerBack} ms after the broker is back\n`);
    expect(gateway.child.exitCode).toBeNull();
  });
});

/** A TCP proxy to Postgres that the test opens and cuts: the database as the app sees it, without touching the shared server. */
class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Stops accepting and drops every connection at once, as a database that went away. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('availability with Postgres away', () => {
  it('a service started before its Postgres answers waits, not ready, and one that loses it while running is not ready until it returns, never exiting', async () => {
    const real = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
    const proxy = new TcpProxy(await freePort(), { host: real.hostname, port: Number(real.port || 5432) });
    const viaProxy = new URL(real.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const plate = await spawnApp('plate', { DATABASE_URL: viaProxy.toString() });
    const readiness = async (): Promise<{ status: number; waitingFor: string[] }> => {
      const r = await fetch(`${plate.url}/readyz`);
      const body = (await r.json()) as Partial<ErrorBody>;
      return { status: r.status, waitingFor: (body.error?.details ?? []).map((d) => d.path) };
    };
    try {
      // Start-up: alive, not ready, naming postgres (only postgres: Kafka is the run's, and up).
      await until('readiness naming postgres', 30_000, async () => {
        const r = await readiness();
        return r.waitingFor.includes('postgres') ? r : undefined;
      }).then((r) => expect(r).toEqual({ status: 503, waitingFor: ['postgres'] }));
      expect((await fetch(`${plate.url}/healthz`)).status).toBe(200);
      await until('the wait logged', 10_000, () =>
        Promise.resolve(plate.output().includes('"msg":"waiting for postgres"') ? true : undefined),
      );

      // Postgres answers: the service starts by itself.
      await proxy.open();
      const opened = Date.now();
      await until('plate ready', 45_000, async () => ((await readyz(plate.url)) === 200 ? true : undefined));
      process.stdout.write(`[availability] plate ready ${Date.now() - opened} ms after Postgres answered\n`);
      expect(plate.output()).toContain('"msg":"dependencies answer; starting"');

      // Lost while running: not ready, naming postgres, and the process stays.
      await proxy.cut();
      await until('plate not ready, naming postgres', 20_000, async () => {
        const r = await readiness();
        return r.status === 503 && r.waitingFor.includes('postgres') ? true : undefined;
      });
      await new Promise((r) => setTimeout(r, 3_000));
      expect(plate.child.exitCode).toBeNull();
      expect(await readiness()).toMatchObject({ status: 503 });

      // Back: ready again by itself.
      await proxy.open();
      const back = Date.now();
      await until('plate ready again', 30_000, async () => ((await readyz(plate.url)) === 200 ? true : undefined));
      process.stdout.write(`[availability] plate ready again ${Date.now() - back} ms after Postgres returned\n`);
      expect(plate.child.exitCode).toBeNull();
    } finally {
      await stopChild(plate.child);
      await proxy.cut();
    }
  }, 150_000);
});

describe('replicas that are gone', () => {
  it('the janitor of a live gateway removes a killed replica’s private consumer groups', async () => {
    // A topic prefix of its own: the gateways of other files (their janitors sweep every 30 s) must
    // not remove the killed replica's groups before this file's live one does.
    const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}janitor-e2e.`;
    const env = { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), KAFKA_GROUP_JANITOR_INTERVAL_MS: '1000', KAFKA_TOPIC_PREFIX: prefix };
    const kafka = testKafka('janitor-check', { KAFKA_TOPIC_PREFIX: prefix });
    await ensureTopics(await kafka.client.admin(), allTopics(), prefix);
    const [live, doomed] = await Promise.all([startAppProcess('gateway', env), startAppProcess('gateway', env)]);
    try {
      const doomedId = `gateway-${new URL(doomed.url).port}`;
      const groups = async () => (await (await kafka.client.admin()).listGroups()).groups.map((g) => g.groupId);
      const mine = (await groups()).filter((g) => g.endsWith(`.${doomedId}`));
      expect(mine).toEqual(expect.arrayContaining([kafka.client.group(`gateway.replies.${doomedId}`)]));

      doomed.child.kill('SIGKILL');
      await doomed.exited;
      // Its session times out (6 s), then two janitor passes a second apart.
      await until('the dead replica’s groups removed', 40_000, async () =>
        (await groups()).some((g) => mine.includes(g)) ? undefined : true,
      );
      expect(live.output()).toContain('"msg":"removed the consumer groups of replicas that are gone"');
      const liveId = `gateway-${new URL(live.url).port}`;
      expect(await groups()).toContain(kafka.client.group(`gateway.replies.${liveId}`));
    } finally {
      await kafka.close();
      await live.stop();
    }
  });
});

describe('a consumer that crashed for good', () => {
  it('makes its app drain and exit 1 so that it is restarted', async () => {
    // An app of the platform (its probes, Kafka client and drain) whose one consumer fails with a
    // non-retriable error: kafkajs crashes it with restart=false.
    const group = `crashy-${run}`;
    const script = `
      const { KafkaJSNonRetriableError } = require('kafkajs');
      const p = require(${JSON.stringify(join(repoRoot(), 'dist', 'libs', 'platform', 'src', 'index.js'))});
      const config = p.loadConfig(p.AppConfig, process.env);
      const logger = p.createLogger('crashy', 'info', config.INSTANCE_ID);
      const metrics = new p.Metrics('crashy');
      (async () => {
        const app = await p.createHttpApp(p.PlatformModule.forRoot({ app: 'crashy', config, logger, metrics }), { config, logger, metrics });
        p.drainOnSignals(app, config, logger);
        const kafka = app.get(p.KafkaClient);
        const topic = process.env.KAFKA_TOPIC_PREFIX + 'plate.commands';
        await kafka.startConsumer({
          groupId: kafka.group(${JSON.stringify(group)}),
          topics: [topic],
          fromBeginning: false,
          concurrency: 1,
          eachMessage: async () => {
            await new Promise((r) => setTimeout(r, 1500)); // time for the test to see it ready, then not
            throw new KafkaJSNonRetriableError('poison message');
          },
        });
        logger.info('consumer started');
      })().catch((err) => { console.error(err); process.exit(3); });
    `;
    const port = await freePort();
    const child = spawn(process.execPath, ['-e', script], {
      cwd: repoRoot(),
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', HTTP_PORT: String(port), INSTANCE_ID: `crashy-${port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { output, closed: exited } = collectOutput(child);
    const url = `http://127.0.0.1:${port}`;
    const kafka = testKafka('crashy-feed');
    try {
      await until('the app ready with its consumer', 30_000, () =>
        Promise.resolve(output().includes('"msg":"consumer started"') ? true : undefined),
      );
      expect(await readyz(url)).toBe(200);
      await kafka.client.send(kafka.client.topic(Topics.plateCommands), [{ key: 'k', value: 'poison' }]);
      // It drains at once (the not-ready state itself is held by libs/platform/test/availability.int-spec.ts), then exits 1.
      const code = await exited;
      expect(code).toBe(1);
      expect(output()).toContain('"msg":"consumer crashed and will not restart; the app is not ready"');
      expect(output()).toContain('"msg":"cannot recover by itself; draining and exiting"');
      expect(output()).toMatch(/"msg":"stopped".*"exitCode":1|"exitCode":1.*"msg":"stopped"/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await kafka.close();
    }
  });
});

describe('npm start supervision', () => {
  it('restarts a killed app with a line saying why while the others keep serving; stopping drains all', async () => {
    const ports = { identity: await freePort(), plate: await freePort() };
    const harness = `
      import { Supervisor } from ${JSON.stringify(join(repoRoot(), 'scripts', 'supervisor.mjs'))};
      const s = new Supervisor({ log: (l) => console.log(l) });
      const ports = ${JSON.stringify(ports)};
      const mains = ${JSON.stringify({ identity: mainOf('identity'), plate: mainOf('plate') })};
      for (const [app, port] of Object.entries(ports)) {
        s.add(app, {
          command: process.execPath,
          args: [mains[app]],
          env: { ...process.env, NODE_ENV: 'test', MIGRATE_ON_START: 'true', HTTP_PORT: String(port), INSTANCE_ID: app + '-' + port },
          onOutput: (chunk) => process.stdout.write(chunk),
          onStart: (child) => console.log(JSON.stringify({ started: app, pid: child.pid })),
        });
      }
      process.on('SIGTERM', () => s.stop(15000).then(() => { console.log('supervisor stopped'); process.exit(0); }));
    `;
    const supervisor = spawn(process.execPath, ['--input-type=module', '-e', harness], {
      cwd: repoRoot(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { output, closed } = collectOutput(supervisor);
    const pids = () =>
      output()
        .split('\n')
        .filter((l) => l.startsWith('{"started":"identity"'))
        .map((l) => (JSON.parse(l) as { pid: number }).pid);
    const url = (app: keyof typeof ports) => `http://127.0.0.1:${ports[app]}`;
    try {
      await until('both apps ready', 45_000, async () =>
        (await readyz(url('identity'))) === 200 && (await readyz(url('plate'))) === 200 ? true : undefined,
      );
      const [first] = pids();
      process.kill(first, 'SIGKILL');
      const killedAt = Date.now();
      await until('the restart line', 10_000, () =>
        Promise.resolve(
          /\[supervisor\] identity killed by SIGKILL after .* s; restarting in 1\.0 s \(restart 1\)/.test(output()) ? true : undefined,
        ),
      );
      // The other app is not touched meanwhile.
      expect(await readyz(url('plate'))).toBe(200);
      await until('identity ready again', 30_000, async () => ((await readyz(url('identity'))) === 200 ? true : undefined));
      process.stdout.write(`[availability] identity ready again ${Date.now() - killedAt} ms after kill -9\n`);
      expect(pids()).toHaveLength(2);
      expect(pids()[1]).not.toBe(first);
    } finally {
      supervisor.kill('SIGTERM');
      // `closed`, not 'exit': the lines checked below are the supervisor's last.
      await closed;
    }
    expect(output()).toContain('supervisor stopped');
    expect(output().match(/"msg":"stopped"/g)?.length).toBe(2);
  });
});
