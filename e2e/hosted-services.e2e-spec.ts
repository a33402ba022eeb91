import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Topics } from '@worktrack/contracts';
import {
  collectOutput,
  freePort,
  memberWithToken,
  repoRoot,
  servicesHostMain,
  startAppProcess,
  testKafka,
  type AppProcess,
} from '@worktrack/testing';
import { call } from './http';

// ADR 0012 decision 9 (idle): several services in one process (WORKTRACK_SERVICES),
// the way `npm start` runs the six services. The same code, topics, groups and
// schemas as one process per service; probes on each service's own port; one
// drain for all on SIGTERM; a consumer crashed for good in any hosted service
// drains them all and exits 1.

const SERVICES = ['identity', 'ingestion', 'correlation', 'sessions', 'plate', 'connectors', 'webhooks', 'reporting'] as const;
const run = randomUUID().slice(0, 8);

interface Host {
  child: ChildProcess;
  ports: Record<string, number>;
  output: () => string;
  exited: Promise<number | null>;
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

const readyz = (port: number): Promise<number> =>
  fetch(`http://127.0.0.1:${port}/readyz`).then(
    (r) => r.status,
    () => 0,
  );

/** `node dist/scripts/services-host.js` with WORKTRACK_SERVICES naming all of `services`, each on a free port. */
async function startHost(services: readonly string[], args: string[] = [], extraEnv: Record<string, string> = {}): Promise<Host> {
  const ports: Record<string, number> = {};
  const portEnv: Record<string, string> = {};
  for (const s of services) {
    ports[s] = await freePort();
    portEnv[`${s.toUpperCase()}_HTTP_PORT`] = String(ports[s]);
  }
  const child = spawn(process.execPath, ['--enable-source-maps', ...args, servicesHostMain()], {
    cwd: repoRoot(),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      MIGRATE_ON_START: 'true',
      SHUTDOWN_TIMEOUT_MS: '10000',
      INSTANCE_ID: `host-${run}-${ports[services[0]]}`,
      WORKTRACK_SERVICES: services.join(','),
      HTTP_PORT: '1', // ignored when several services are hosted: each takes <NAME>_HTTP_PORT
      ...portEnv,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // `closed` comes after the pipes end, so output() then holds the last lines (the final "stopped").
  const { output, closed } = collectOutput(child);
  return { child, ports, output, exited: closed };
}

describe('several services in one process (WORKTRACK_SERVICES)', () => {
  jest.setTimeout(240_000);

  describe('the six services hosted by one process', () => {
    let host: Host;
    let gateway: AppProcess;

    beforeAll(async () => {
      host = await startHost(SERVICES);
      await until('every hosted service ready', 180_000, async () => {
        if (host.child.exitCode !== null) throw new Error(`host exited ${host.child.exitCode}:\n${host.output()}`);
        const codes = await Promise.all(SERVICES.map((s) => readyz(host.ports[s])));
        return codes.every((c) => c === 200) ? true : undefined;
      }).catch((err: Error) => {
        throw new Error(`${err.message}\n${host.output().slice(-4000)}`);
      });
      gateway = await startAppProcess('gateway', {}, 120_000);
    }, 300_000);

    afterAll(async () => {
      await gateway?.stop();
      if (host?.child.exitCode === null) host.child.kill('SIGKILL');
    });

    it('serves: every service answers /status from its own schema, one process instance for all', async () => {
      expect(host.output()).toContain('"msg":"hosting several services in this process"');
      // Nest's own lines come from one process-wide logger, not from whichever service started last.
      expect(host.output()).toMatch(/"app":"services".*"msg":"Nest application successfully started"/);
      const res = await call<{ data: { services: Array<{ service: string; schema: string; instanceId: string }> } }>(
        gateway.url,
        'GET',
        '/status',
      );
      expect(res.status).toBe(200);
      expect(res.body.data.services.map((s) => [s.service, s.schema])).toEqual(SERVICES.map((s) => [s, s]));
      expect(new Set(res.body.data.services.map((s) => s.instanceId)).size).toBe(1);
    });

    it('takes events, correlates them and reads them back through the hosted services', async () => {
      const m = memberWithToken({ workspace: `hosted-${run}`, email: `hosted-${run}@example.com` });
      const posted = await call(gateway.url, 'POST', '/v1/activity/events', {
        token: m.token,
        body: { event_type: 'deploy', source_type: 'hosted', external_id: `hosted-${run}`, payload: { env: 'prod' } },
      });
      expect(posted.status).toBe(202);
      const events = await until('the event readable', 30_000, async () => {
        const res = await call<{ data: Array<{ external_id: string }> }>(gateway.url, 'GET', '/v1/activity/events?source_type=hosted', {
          token: m.token,
        });
        return res.status === 200 && res.body.data.length === 1 ? res.body.data : undefined;
      });
      expect(events[0].external_id).toBe(`hosted-${run}`);
      expect((await call(gateway.url, 'GET', '/v1/sessions', { token: m.token })).status).toBe(200);
    });

    it('process metrics once (in the first service), each service its own metrics on its own port', async () => {
      const text = (s: string) => fetch(`http://127.0.0.1:${host.ports[s]}/metrics`).then((r) => r.text());
      const [first, other] = await Promise.all([text('identity'), text('sessions')]);
      expect(first).toMatch(/^process_cpu_seconds_total\{app="identity"\}/m);
      expect(other).not.toMatch(/^process_cpu_seconds_total/m);
      expect(other).toMatch(/^worktrack_ready\{app="sessions"\} 1$/m);
    });

    it('SIGTERM drains every hosted service and exits 0', async () => {
      host.child.kill('SIGTERM');
      expect(await host.exited).toBe(0);
      const stopped = host.output().match(/"msg":"stopped"/g) ?? [];
      expect(stopped).toHaveLength(1);
      // Each service's transport stopped its consumers (Nest closes the microservice of every app).
      for (const s of SERVICES) expect(await readyz(host.ports[s])).toBe(0);
    });
  });

  it('a consumer crashed for good in one hosted service makes every hosted service not ready and the process exit 1', async () => {
    // plate and sessions hosted together; a consumer that crashes for good is added to sessions' Kafka
    // client (as e2e/availability.e2e-spec.ts does for one app) by a preload that hooks the platform.
    const group = `hosted-crashy-${run}`;
    const preload = join(repoRoot(), 'e2e', 'fixtures', 'crash-hosted-consumer.cjs');
    const host = await startHost(['plate', 'sessions'], ['--require', preload], {
      CRASHY_GROUP: group,
      CRASHY_SERVICE: 'sessions',
      PLATFORM_INDEX: join(repoRoot(), 'dist', 'libs', 'platform', 'src', 'index.js'),
    });
    const kafka = testKafka('hosted-crashy-feed');
    try {
      await until('both hosted services ready and the crashy consumer running', 120_000, async () => {
        if (host.child.exitCode !== null) throw new Error(`host exited ${host.child.exitCode}:\n${host.output()}`);
        const codes = await Promise.all([readyz(host.ports.plate), readyz(host.ports.sessions)]);
        return codes.every((c) => c === 200) && host.output().includes('"msg":"crashy consumer started"') ? true : undefined;
      });
      await kafka.client.send(kafka.client.topic(Topics.plateCommands), [{ key: 'k', value: 'poison' }]);
      // plate, whose own consumers are fine, stops being ready too (503 while draining, then gone).
      await until('plate not ready', 30_000, async () => ((await readyz(host.ports.plate)) !== 200 ? true : undefined));
      expect(await host.exited).toBe(1);
      expect(host.output()).toContain('"msg":"consumer crashed and will not restart; the app is not ready"');
      expect(host.output()).toContain('"msg":"cannot recover by itself; draining and exiting"');
      // Exit 1 either after a clean drain or when the drain outlasts SHUTDOWN_TIMEOUT_MS: under load a sibling's close
      // can exceed it (plate's, seen in CI; an open defect, see docs/benchmarks.md "Session 19"), and the supervisor
      // restarts the process either way. The clean drain itself is held by the SIGTERM test above.
      expect(host.output()).toMatch(/"msg":"stopped".*"exitCode":1|"exitCode":1.*"msg":"stopped"|"msg":"drain timed out; exiting"/);
      // A timed-out drain names the apps still closing: shown in the run's log, to find which close hangs.
      const stuck = host
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"app did not close in time"'));
      if (stuck.length > 0) console.warn(`the drain timed out; still closing:\n${stuck.join('\n')}\n${host.output().slice(-6000)}`);
    } finally {
      if (host.child.exitCode === null) host.child.kill('SIGKILL');
      await kafka.close();
    }
  });
});
