import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { boundPort, createHttpApp, createLogger, Metrics } from '@worktrack/platform';
import { testConfig } from '@worktrack/testing';
import { configureGateway } from '../src/gateway.app';
import { GatewayConfig } from '../src/gateway.config';
import { GatewayModule } from '../src/gateway.module';
import { gatewayErrors } from '../src/http/error-envelope';
import { WEB_CONTENT_SECURITY_POLICY } from '../src/http/web-app';

const PAGE =
  '<!doctype html><html lang="en"><head><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body></body></html>';
const SCRIPT = 'console.log("app");';
const HTML = { accept: 'text/html,application/xhtml+xml' };

/** D-44: the gateway serves the built web app at `/` from the same origin, the API staying under /v1. */
describe('D-44: the web app served by the gateway', () => {
  let app: NestFastifyApplication;
  let base: string;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'web-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), PAGE);
    writeFileSync(join(root, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
    const config = testConfig(GatewayConfig, { WEB_ROOT: root });
    const logger = createLogger('gateway', 'silent', config.INSTANCE_ID);
    const metrics = new Metrics('gateway');
    app = await createHttpApp(GatewayModule.forRoot(config, logger, metrics), {
      config,
      logger,
      metrics,
      errors: gatewayErrors(logger),
      configure: configureGateway,
    });
    base = `http://127.0.0.1:${boundPort(app)}`;
  });

  afterAll(async () => {
    await app?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers / with the page, never stored, under a strict Content-Security-Policy and no referrer', async () => {
    const res = await fetch(`${base}/`, { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe(PAGE);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(WEB_CONTENT_SECURITY_POLICY);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('falls back to the page for the app paths outside /v1 (history routing), with their query strings', async () => {
    for (const path of ['/today', '/sessions', '/settings', '/sign-in?return_to=%2Fplate', '/accept-invite?token=abc', '/some/deep/path']) {
      const res = await fetch(`${base}${path}`, { headers: HTML });
      expect({ path, status: res.status, body: await res.text() }).toEqual({ path, status: 200, body: PAGE });
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('serves hashed assets for a year, immutable, with the same policy', async () => {
    const res = await fetch(`${base}/assets/index-Ab12Cd34.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-security-policy')).toBe(WEB_CONTENT_SECURITY_POLICY);
    expect(await res.text()).toBe(SCRIPT);
  });

  it('keeps the API, a missing asset and non-HTML requests as the D-1 404 NOT_FOUND', async () => {
    for (const [path, headers] of [
      ['/v1/nope', HTML],
      ['/v1/sessions/x/y/z', HTML],
      ['/assets/missing-123.js', HTML],
      ['/hooks/nope', HTML],
      ['/favicon.ico', { accept: 'image/*' }],
      ['/today', { accept: 'application/json' }],
    ] as const) {
      const res = await fetch(`${base}${path}`, { headers });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
  });

  it('leaves the API, the document and the reference where they were', async () => {
    const me = await fetch(`${base}/v1/me`, { headers: HTML });
    expect(me.status).toBe(401);
    expect(me.headers.get('cache-control')).toBe('no-store');
    const doc = await fetch(`${base}/openapi.yaml`, { headers: HTML });
    expect(doc.status).toBe(200);
    expect(await doc.text()).toMatch(/^openapi: 3\.1/m);
    const docs = await fetch(`${base}/docs`, { headers: HTML });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
  });
});
