import { spawnSync } from 'node:child_process';
import { mainOf, repoRoot, startAppProcess, type AppProcess } from '@worktrack/testing';

const SERVICES = ['identity', 'ingestion', 'correlation', 'sessions', 'plate', 'connectors', 'webhooks', 'reporting'] as const;
const TIMEOUT_MS = 5_000; // the default bound; a 40-request burst of /status fans out to every service and must fit it on a loaded 2-core machine

interface StatusBody {
  data?: { services: Array<{ service: string; schema: string; migrations: Array<{ name: string }> }> };
  error?: { code: string; message: string; details: Array<{ path: string; issue: string }> };
}

/**
 * The built system as separate processes, like production: five services and
 * two gateway replicas, on the run's real Kafka and Postgres.
 */
describe('the system end to end', () => {
  const services = new Map<string, AppProcess>();
  const gateways: AppProcess[] = [];

  beforeAll(async () => {
    // The explicit migration step (a k8s Job in production), run twice: idempotent.
    for (let run = 0; run < 2; run++) {
      for (const service of SERVICES) {
        const result = spawnSync(process.execPath, [mainOf(service), 'migrate'], {
          cwd: repoRoot(),
          encoding: 'utf8',
          env: { ...process.env, LOG_LEVEL: 'info' },
        });
        expect({ service, status: result.status, stderr: result.stderr }).toEqual({ service, status: 0, stderr: '' });
        // Other end-to-end files of this run may have migrated first; a second run must find nothing to do.
        expect(result.stdout).toMatch(run === 0 ? /"msg":"(migrations applied|schema up to date)"/ : /"msg":"schema up to date"/);
      }
    }
    const started = await Promise.all(SERVICES.map((s) => startAppProcess(s, { MIGRATE_ON_START: 'false' })));
    started.forEach((p) => services.set(p.app, p));
    gateways.push(...(await Promise.all([1, 2].map(() => startAppProcess('gateway', { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) })))));
    // Twelve sequential migration processes and eight app start-ups: a generous bound for a shared, loaded machine.
  }, 300_000);

  afterAll(async () => {
    await Promise.all([...gateways, ...services.values()].map((p) => p.stop()));
  });

  it('one request crosses a gateway, Kafka and every service’s Postgres and comes back, through either replica', async () => {
    for (const [i, gateway] of gateways.entries()) {
      const res = await fetch(`${gateway.url}/status`, { headers: { 'x-request-id': `e2e-status-${i}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBe(`e2e-status-${i}`);
      const body = (await res.json()) as StatusBody;
      expect(body.data?.services.map((s) => s.service)).toEqual([...SERVICES]);
      for (const s of body.data?.services ?? []) {
        expect(s.schema).toBe(s.service);
        expect(s.migrations.length).toBeGreaterThanOrEqual(1);
      }
    }
    // JSON logs carry the request id: a failed request's access line is info; a quick success's is
    // debug (ADR 0012 decision 18), so not in this info-level log.
    const failed = await fetch(`${gateways[0].url}/v1/no-such-route`, { headers: { 'x-request-id': 'e2e-missing-0' } });
    expect(failed.status).toBe(404);
    const logLine = async (requestId: string): Promise<string | undefined> => {
      for (let i = 0; i < 50; i++) {
        const found = gateways[0]
          .output()
          .split('\n')
          .find((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"msg":"request"'));
        if (found) return found;
        await new Promise((r) => setTimeout(r, 20));
      }
      return undefined;
    };
    const line = await logLine('e2e-missing-0');
    expect(line && JSON.parse(line)).toMatchObject({ app: 'gateway', msg: 'request', status: 404, url: '/v1/no-such-route' });
    expect(await logLine('e2e-status-0')).toBeUndefined();
  });

  it('answers concurrent requests on both replicas with their own replies', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => fetch(`${gateways[i % 2].url}/status`, { headers: { 'x-request-id': `burst-${i}` } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 40 }, () => 200));
    expect(responses.map((r) => r.headers.get('x-request-id'))).toEqual(Array.from({ length: 40 }, (_, i) => `burst-${i}`));
  });

  it('a service drains on SIGTERM and exits 0; the gateway then answers 503 UNAVAILABLE within the bound', async () => {
    const sessions = services.get('sessions')!;
    const code = await sessions.stop();
    services.delete('sessions');
    expect(code).toBe(0);
    expect(sessions.output()).toContain('"msg":"draining"');
    expect(sessions.output()).toContain('"msg":"stopped"');

    const started = Date.now();
    const res = await fetch(`${gateways[0].url}/status`);
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    const body = (await res.json()) as StatusBody;
    expect(body.error?.code).toBe('UNAVAILABLE');
    expect(body.error?.details.map((d) => d.path)).toEqual(['sessions']);
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2_000);

    // Back up: the same consumer group resumes and the system answers again.
    services.set('sessions', await startAppProcess('sessions', { MIGRATE_ON_START: 'false' }));
    const again = await fetch(`${gateways[1].url}/status`);
    expect(again.status).toBe(200);
  });

  it('a gateway drains on SIGTERM: stops being ready, exits 0', async () => {
    const gateway = gateways.pop()!;
    expect(await gateway.stop()).toBe(0);
    expect(gateway.output()).toContain('"msg":"stopped"');
  });

  it.each([
    ['a malformed variable', { HTTP_PORT: 'eighty' }, /HTTP_PORT: .*(integer|number)/],
    ['the development JWT secret in production', { NODE_ENV: 'production' }, /JWT_SECRET: the development default must not be used/],
    ['a bad broker list', { KAFKA_BROKERS: 'not a broker' }, /KAFKA_BROKERS: must be a comma-separated list of host:port/],
  ])('refuses to start with %s, naming it', (_name, env, message) => {
    const result = spawnSync(process.execPath, [mainOf('gateway')], {
      cwd: repoRoot(),
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: 15_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(message);
  });
});
