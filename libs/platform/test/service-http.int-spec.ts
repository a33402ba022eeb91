import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, boundPort, createHttpApp, createLogger, loadConfig, Metrics, PlatformModule, ReadinessService } from '../src';

// A service's HTTP app (probes and metrics only) answers its errors
// in the D-1 envelope without the gateway's mapping: unknown routes 404
// NOT_FOUND, /readyz 503 UNAVAILABLE with Retry-After, /metrics 401
// UNAUTHENTICATED without the operator credential; every answer has its x-request-id.

const OPERATOR_TOKEN = `op-${randomUUID()}`;
let app: NestFastifyApplication;
let base: string;

beforeAll(async () => {
  const config = loadConfig(AppConfig, {
    ...process.env,
    HTTP_PORT: '0',
    OPERATOR_TOKEN,
    INSTANCE_ID: `http-${randomUUID().slice(0, 8)}`,
  });
  const logger = createLogger('probes', process.env.LOG_LEVEL ?? 'silent', config.INSTANCE_ID);
  const metrics = new Metrics('probes', { processMetrics: false });
  app = await createHttpApp(PlatformModule.forRoot({ app: 'probes', config, logger, metrics }), { config, logger, metrics });
  base = `http://127.0.0.1:${boundPort(app)}`;
});
afterAll(async () => {
  await app?.close();
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { error?: { code: string; message: string } } };
};

describe("a service's probe routes", () => {
  it('an unknown route is 404 NOT_FOUND in the envelope, with the request id echoed', async () => {
    const res = await get('/nope', { 'x-request-id': 'probe-404' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: 'No such route.' } });
    expect(res.headers.get('x-request-id')).toBe('probe-404');
  });

  it('/readyz while draining is 503 UNAVAILABLE with Retry-After', async () => {
    expect((await get('/readyz')).status).toBe(200);
    app.get(ReadinessService).setAccepting(false);
    try {
      const res = await get('/readyz');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body.error?.code).toBe('UNAVAILABLE');
    } finally {
      app.get(ReadinessService).setAccepting(true);
    }
  });

  it('/metrics without the operator credential is 401 UNAUTHENTICATED; with it, the metrics', async () => {
    const refused = await get('/metrics');
    expect(refused.status).toBe(401);
    expect(refused.body.error?.code).toBe('UNAUTHENTICATED');
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('worktrack_ready');
  });
});
