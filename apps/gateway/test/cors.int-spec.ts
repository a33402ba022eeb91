import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { boundPort, createHttpApp, createLogger, Metrics } from '@worktrack/platform';
import { testConfig } from '@worktrack/testing';
import { configureGateway } from '../src/gateway.app';
import { GatewayConfig } from '../src/gateway.config';
import { GatewayModule } from '../src/gateway.module';
import { CORS_MAX_AGE_SECONDS } from '../src/http/cors';
import { gatewayErrors } from '../src/http/error-envelope';

const LISTED = 'https://app.example.com';
const ALSO_LISTED = 'http://localhost:5173';
/** Origins that are not on the list, including near misses of a listed one. */
const UNLISTED = ['https://evil.example.net', 'https://app.example.com.evil.example.net', 'http://app.example.com', 'null'];
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
];

async function startGateway(overrides: Record<string, string>): Promise<{ app: NestFastifyApplication; base: string }> {
  const config = testConfig(GatewayConfig, overrides);
  const logger = createLogger('gateway', 'silent', config.INSTANCE_ID);
  const metrics = new Metrics('gateway');
  const app = await createHttpApp(GatewayModule.forRoot(config, logger, metrics), {
    config,
    logger,
    metrics,
    errors: gatewayErrors(logger),
    configure: configureGateway,
  });
  return { app, base: `http://127.0.0.1:${boundPort(app)}` };
}

const preflight = (base: string, origin: string, path = '/v1/sessions'): Promise<Response> =>
  fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });

const corsHeadersOf = (res: Response): Record<string, string> =>
  Object.fromEntries(CORS_HEADERS.flatMap((name) => (res.headers.has(name) ? [[name, res.headers.get(name) ?? '']] : [])));

describe('CORS for the operator-listed browser origins (CORS_ALLOWED_ORIGINS)', () => {
  describe('with origins listed', () => {
    let gateway: { app: NestFastifyApplication; base: string };
    beforeAll(async () => {
      gateway = await startGateway({ CORS_ALLOWED_ORIGINS: `${LISTED},${ALSO_LISTED}` });
    });
    afterAll(async () => {
      await gateway?.app.close();
    });

    it('answers the preflight of a listed origin 204 with the methods, headers and max age, echoing the origin', async () => {
      for (const origin of [LISTED, ALSO_LISTED]) {
        const res = await preflight(gateway.base, origin);
        expect(res.status).toBe(204);
        expect(res.headers.get('access-control-allow-origin')).toBe(origin);
        expect(res.headers.get('access-control-allow-credentials')).toBe('true');
        expect(res.headers.get('access-control-allow-methods')?.split(/,\s*/)).toEqual(
          expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE']),
        );
        expect(res.headers.get('access-control-allow-headers')?.toLowerCase().split(/,\s*/)).toEqual(
          expect.arrayContaining(['authorization', 'content-type', 'x-request-id']),
        );
        expect(res.headers.get('access-control-max-age')).toBe(String(CORS_MAX_AGE_SECONDS));
        expect(res.headers.get('vary')).toMatch(/\bOrigin\b/i);
        expect(await res.text()).toBe('');
      }
      // Before authentication, for every route.
      expect((await preflight(gateway.base, LISTED, '/v1/sessions/4f9c1b52-8d0e-4c8e-9a3c-2f4b6f1d7e21/close')).status).toBe(204);
      expect((await preflight(gateway.base, LISTED, '/v1/me')).status).toBe(204);
    });

    it('lets a listed origin read answers, errors included, with the request id and rate-limit headers exposed', async () => {
      const res = await fetch(`${gateway.base}/v1/me`, { headers: { origin: LISTED } });
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBe(LISTED);
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(res.headers.get('access-control-expose-headers')?.split(/,\s*/)).toEqual(
        expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']),
      );
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/i);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');

      const document = await fetch(`${gateway.base}/openapi.yaml`, { headers: { origin: ALSO_LISTED } });
      expect(document.status).toBe(200);
      expect(document.headers.get('access-control-allow-origin')).toBe(ALSO_LISTED);
    });

    it('sends an unlisted origin no CORS header at all (no credentials), its preflight an unknown route', async () => {
      for (const origin of UNLISTED) {
        const pre = await preflight(gateway.base, origin);
        expect({ origin, status: pre.status, cors: corsHeadersOf(pre) }).toEqual({ origin, status: 404, cors: {} });
        expect(((await pre.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
        const res = await fetch(`${gateway.base}/v1/me`, { headers: { origin } });
        expect({ origin, status: res.status, cors: corsHeadersOf(res) }).toEqual({ origin, status: 401, cors: {} });
        // A cache between the browser and the gateway must not serve one origin's answer to another.
        expect(res.headers.get('vary')).toMatch(/\bOrigin\b/i);
      }
      const sameOrigin = await fetch(`${gateway.base}/v1/me`);
      expect(corsHeadersOf(sameOrigin)).toEqual({});
    });

    it('never answers with the wildcard origin', async () => {
      for (const origin of [LISTED, ...UNLISTED]) {
        const res = await preflight(gateway.base, origin);
        expect(res.headers.get('access-control-allow-origin')).not.toBe('*');
      }
    });
  });

  describe('by default (no origins listed)', () => {
    let gateway: { app: NestFastifyApplication; base: string };
    beforeAll(async () => {
      gateway = await startGateway({ CORS_ALLOWED_ORIGINS: '' });
    });
    afterAll(async () => {
      await gateway?.app.close();
    });

    it('sends no CORS headers and answers no preflight', async () => {
      const pre = await preflight(gateway.base, LISTED);
      expect({ status: pre.status, cors: corsHeadersOf(pre) }).toEqual({ status: 404, cors: {} });
      const res = await fetch(`${gateway.base}/v1/me`, { headers: { origin: LISTED } });
      expect({ status: res.status, cors: corsHeadersOf(res) }).toEqual({ status: 401, cors: {} });
    });
  });
});
