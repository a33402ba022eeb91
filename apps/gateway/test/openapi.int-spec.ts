import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { API_TOKEN_ANYWHERE, ErrorCode } from '@worktrack/contracts';
import { boundPort, createHttpApp, createLogger, Metrics } from '@worktrack/platform';
import { testConfig } from '@worktrack/testing';
import { configureGateway } from '../src/gateway.app';
import { GatewayConfig } from '../src/gateway.config';
import { GatewayModule } from '../src/gateway.module';
import { gatewayErrors } from '../src/http/error-envelope';
import { httpStatusOf } from '../src/http/error-response';

/** The parts of an OpenAPI 3.1 document this test reads. */
interface Schema {
  type?: string | string[];
  description?: string;
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
}
interface Header {
  required?: boolean;
  schema: Schema;
}
interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, { schema: Schema; examples?: Record<string, { value: unknown }> }>;
}
interface Parameter {
  name?: string;
  in?: string;
  required?: boolean;
  schema?: Schema;
  $ref?: string;
}
interface Operation {
  summary?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, Response>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes: Record<string, { type: string; scheme: string; bearerFormat?: string }>;
  };
}
interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
}

const ROOT = join(__dirname, '..', '..', '..');
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

/** The committed lint rules: Redocly's recommended set (nothing fetched). */
const REDOCLY_CONFIG = join(ROOT, 'redocly.yaml');
/** The operations those rules may not judge, each with its reason. */
const REDOCLY_IGNORES = join(ROOT, '.redocly.lint-ignore.yaml');

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** Documented routes outside /v1, each path item with servers of its own: the provider webhooks, the operator routes, the session JWTs' keys. */
const OUTSIDE_API = /^\/(hooks\/|healthz$|readyz$|metrics$|status$|mcp$|\.well-known\/jwks\.json$)/;
/** The /v1 routes that take no bearer credential: signing in (D-38 … D-40). */
const PUBLIC_API = new Set([
  'POST /auth/login',
  'POST /auth/refresh',
  'POST /auth/logout',
  'POST /auth/accept-invite',
  'GET /auth/providers',
  'GET /auth/oidc/{provider}/start',
  'GET /auth/oidc/{provider}/callback',
]);
/** D-41: browser navigations, not API calls: they answer a redirect (or an HTML page that says why), never `{ data }`. */
const BROWSER_NAVIGATIONS = new Set(['GET /auth/oidc/{provider}/start', 'GET /auth/oidc/{provider}/callback']);
/** The MCP transport's GET and DELETE answer 405 (a stateless server, as the protocol asks): named in POST /mcp's description. */
const PROTOCOL_405 = /^(GET|DELETE) \/mcp$/;

describe('D-6: the OpenAPI document at GET /openapi.yaml and the reference at GET /docs', () => {
  let app: NestFastifyApplication;
  let base: string;
  let text: string;
  let doc: OpenApiDocument;
  /** `METHOD /path` of every route the app serves under /v1, as Fastify registered it. */
  const liveRoutes = new Set<string>();
  /** The routes of neither: this document and its reference page. */
  const otherRoutes = new Set<string>();

  beforeAll(async () => {
    const config = testConfig(GatewayConfig);
    const logger = createLogger('gateway', 'silent', config.INSTANCE_ID);
    const metrics = new Metrics('gateway');
    app = await createHttpApp(GatewayModule.forRoot(config, logger, metrics), {
      config,
      logger,
      metrics,
      errors: gatewayErrors(logger),
      configure: async (created) => {
        created
          .getHttpAdapter()
          .getInstance()
          .addHook('onRoute', (route) => {
            const methods = Array.isArray(route.method) ? route.method : [route.method];
            for (const method of methods) {
              // HEAD mirrors GET; OPTIONS is the CORS preflight.
              if (method === 'HEAD' || method === 'OPTIONS') continue;
              const path = route.url.replace(/:(\w+)/g, '{$1}');
              if (path.startsWith('/v1/')) liveRoutes.add(`${method} ${path.slice('/v1'.length)}`);
              else if (OUTSIDE_API.test(path) && !PROTOCOL_405.test(`${method} ${path}`)) liveRoutes.add(`${method} ${path}`);
              else otherRoutes.add(`${method} ${path}`);
            }
          });
        await configureGateway(created);
      },
    });
    base = `http://127.0.0.1:${boundPort(app)}`;
    const res = await fetch(`${base}/openapi.yaml`);
    text = await res.text();
    doc = parse(text) as OpenApiDocument;
  });

  afterAll(async () => {
    await app?.close();
  });

  const operations = (): Array<[string, Operation]> =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m): [string, Operation] => [`${m.toUpperCase()} ${path}`, item[m]]),
    );
  /** The operations under /v1 (the webhooks are authenticated by provider signatures, the operator routes by the operator token). */
  const apiOperations = (): Array<[string, Operation]> => operations().filter(([name]) => !OUTSIDE_API.test(name.split(' ')[1]));
  /** The /v1 operations behind the bearer credential. */
  const bearerOperations = (): Array<[string, Operation]> => apiOperations().filter(([name]) => !PUBLIC_API.has(name));
  const schema = (name: string): Schema => {
    const found = doc.components.schemas[name];
    if (!found) throw new Error(`no schema ${name}`);
    return found;
  };
  const deref = (s: Schema): Schema => (s.$ref ? schema(s.$ref.replace('#/components/schemas/', '')) : s);
  const codesOf = (response: Response): unknown[] =>
    response.content?.['application/json']?.schema.properties?.error?.properties?.code?.enum ?? [];

  it('serves an OpenAPI 3.1 document as YAML without credentials', async () => {
    for (const headers of [{}, { authorization: 'Bearer wt_not_a_token' }] as Array<Record<string, string>>) {
      const res = await fetch(`${base}/openapi.yaml`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/yaml/);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await res.text()).toBe(text);
    }
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info).toMatchObject({ title: 'worktrack API', version: '1.0' });
    // An absolute server a generated client can use as is, its host a variable (PUBLIC_URL by default); and this server.
    expect(doc.servers).toEqual([
      expect.objectContaining({
        url: '{scheme}://{host}/v1',
        variables: {
          scheme: expect.objectContaining({ default: 'http' }) as unknown,
          host: expect.objectContaining({ default: 'localhost:3000' }) as unknown,
        },
      }),
      expect.objectContaining({ url: '/v1' }),
    ]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.bearer.bearerFormat).toContain('wt_');
  });

  it('documents exactly the routes the app serves under /v1 and the provider webhooks, each with a summary', () => {
    const documented = operations().map(([name]) => name);
    expect([...liveRoutes]).toEqual(
      expect.arrayContaining([
        'GET /me',
        'POST /tokens',
        'GET /tokens',
        'DELETE /tokens/{token_id}',
        'POST /agents',
        'POST /hooks/github/{connector_id}',
        'POST /hooks/slack/{connector_id}',
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
        'GET /status',
      ]),
    );
    expect(documented.sort()).toEqual([...liveRoutes].sort());
    // Everything else the gateway serves is this document and its page, and the web app when built (D-44: `/`, its assets, the history fallback).
    expect(
      [...otherRoutes].filter((route) => !/^GET \/(openapi\.yaml|docs(\/.*)?|\*|assets\/[^/]+)?$/.test(route) && !PROTOCOL_405.test(route)),
    ).toEqual([]);
    // The webhooks and operator routes live outside /v1: their own servers say so.
    for (const path of Object.keys(doc.paths).filter((p) => OUTSIDE_API.test(p))) {
      const servers = (doc.paths[path] as unknown as { servers: Array<{ url: string }> }).servers;
      expect({ path, servers: servers.map((s) => s.url) }).toEqual({ path, servers: ['{scheme}://{host}', '/'] });
    }
    for (const [name, operation] of operations()) expect({ name, summary: typeof operation.summary }).toEqual({ name, summary: 'string' });
  });

  it('answers every documented operation without a credential with the documented 401', async () => {
    for (const [name, operation] of bearerOperations()) {
      const [method, path] = name.split(' ');
      const res = await fetch(`${base}/v1${path.replace(/\{\w+\}/g, 'abcdefgh')}`, {
        method,
        ...(operation.requestBody ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
      });
      const body = (await res.json()) as { error: { code: string } };
      expect({ name, status: res.status, code: body.error.code }).toEqual({ name, status: 401, code: 'UNAUTHENTICATED' });
      expect(codesOf(operation.responses['401'])).toEqual([body.error.code]);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('carries the validation rules of the request DTOs (limits, patterns, enums, closed objects)', () => {
    expect(doc.paths['/tokens'].post.requestBody?.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateTokenDto',
    });
    expect(schema('CreateTokenDto')).toMatchObject({
      type: 'object',
      required: ['name', 'scope'],
      additionalProperties: false,
      properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, scope: { enum: ['full', 'report_only'] } },
    });
    const agent = schema('RegisterAgentDto');
    expect(agent).toMatchObject({
      required: ['name'],
      additionalProperties: false,
      properties: { name: { minLength: 1, maxLength: 200 } },
    });
    expect(agent.properties?.scope).toMatchObject({ type: ['string', 'null'], enum: ['full', 'report_only', null] });

    const tokenId = doc.paths['/tokens/{token_id}'].delete.parameters?.find((p) => p.name === 'token_id');
    expect(tokenId).toMatchObject({ in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z2-7]{8}$' } });
    expect(schema('WorkingInterval').properties?.start.pattern).toBe('^([01]\\d|2[0-3]):[0-5]\\d$');

    for (const [name, operation] of apiOperations()) {
      for (const [, placeholder] of name.matchAll(/\{(\w+)\}/g)) {
        const param = operation.parameters?.find((p) => p.in === 'path' && p.name === placeholder);
        expect({ name, placeholder, pattern: typeof param?.schema?.pattern }).toEqual({ name, placeholder, pattern: 'string' });
      }
      const body = operation.requestBody?.content['application/json'].schema;
      if (!body) continue;
      for (const option of body.oneOf ?? [body]) {
        const resolved = deref(option);
        expect({ name, properties: Object.keys(resolved.properties ?? {}).length > 0, closed: resolved.additionalProperties }).toEqual({
          name,
          properties: true,
          closed: false,
        });
      }
    }
  });

  it('documents every success body as { data } (D-1), the member as D-13 says', () => {
    for (const [name, operation] of apiOperations()) {
      if (BROWSER_NAVIGATIONS.has(name)) {
        expect({ name, redirect: '302' in operation.responses }).toEqual({ name, redirect: true });
        continue;
      }
      const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      expect({ name, successes: success.length }).toEqual({ name, successes: 1 });
      const body = success[0][1].content?.['application/json']?.schema;
      expect({ name, data: body?.required?.includes('data') && body.properties?.data !== undefined }).toEqual({ name, data: true });
    }
    const member = schema('MemberBody');
    const d13 = ['member_id', 'workspace_id', 'kind', 'role', 'display_name', 'email', 'timezone', 'working_hours', 'plate_capacity'];
    expect(Object.keys(member.properties ?? {}).sort()).toEqual([...d13].sort());
    expect([...(member.required ?? [])].sort()).toEqual([...d13].sort());
    expect(member.properties?.email.type).toEqual(['string', 'null']);
    expect(doc.paths['/me'].get.responses['200'].content?.['application/json'].schema.properties?.data).toEqual({
      $ref: '#/components/schemas/MemberBody',
    });
    // D-37: the token form is described, and its example is a placeholder no scanner flags and the gateway refuses by shape.
    expect(schema('CreatedTokenBody').properties?.token.description).toContain('`wt_<token id: 8 lowercase base32>_<secret: 43 base62>`');
    expect(text).not.toMatch(API_TOKEN_ANYWHERE);
    expect(schema('RegisteredAgentBody').properties?.agent).toEqual({ $ref: '#/components/schemas/MemberBody' });
  });

  it('requires the bearer credential on every operation and documents its errors and headers (D-2, D-4, D-5)', () => {
    expect(schema('ErrorCode').enum).toEqual(Object.values(ErrorCode));
    for (const [name, operation] of apiOperations()) {
      if (PUBLIC_API.has(name)) {
        expect({ name, security: operation.security }).toEqual({ name, security: [] });
        continue;
      }
      expect({ name, security: operation.security }).toEqual({ name, security: [{ bearer: [] }] });
      const expected = ['401', '429', '500', '503', ...(operation.requestBody ? ['400', '413', '415'] : [])];
      expect({ name, missing: expected.filter((status) => !(status in operation.responses)) }).toEqual({ name, missing: [] });
      if (operation.requestBody)
        expect(codesOf(operation.responses['400'])).toEqual(expect.arrayContaining(['VALIDATION_FAILED', 'INVALID_JSON']));
      expect(operation.responses['429'].headers?.['Retry-After']).toMatchObject({ required: true });

      for (const [status, response] of Object.entries(operation.responses)) {
        expect({ name, status, requestId: response.headers?.['X-Request-Id']?.required }).toEqual({ name, status, requestId: true });
        if (status.startsWith('2') || status === '429') {
          for (const header of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
            expect({ name, status, header, required: response.headers?.[header]?.required }).toEqual({
              name,
              status,
              header,
              required: true,
            });
          }
        }
        if (Number(status) < 400) continue;
        const codes = codesOf(response);
        expect({ name, status, some: codes.length > 0 }).toEqual({ name, status, some: true });
        for (const code of codes)
          expect({ name, code, status: httpStatusOf(code as ErrorCode) }).toEqual({ name, code, status: Number(status) });
        const examples = response.content?.['application/json']?.examples ?? {};
        expect(Object.keys(examples).sort()).toEqual([...codes].sort());
      }
    }
    expect(codesOf(doc.paths['/tokens/{token_id}'].delete.responses['404'])).toEqual(['NOT_FOUND']);
    expect(codesOf(doc.paths['/tokens/{token_id}'].delete.responses['403'])).toEqual(['FORBIDDEN']);
    expect(codesOf(doc.paths['/agents'].post.responses['403'])).toEqual(['FORBIDDEN']);
    expect(doc.paths['/me'].get.responses['403']).toBeUndefined();
  });

  it('documents the webhooks as signed by the provider, not by a bearer credential (D-36)', () => {
    for (const hook of ['/hooks/github/{connector_id}', '/hooks/slack/{connector_id}']) {
      const operation = doc.paths[hook].post;
      expect(operation.security).toEqual([]);
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '401', '404', '413', '415', '429', '500', '503']));
      expect(codesOf(operation.responses['401'])).toEqual(['UNAUTHENTICATED']);
      expect(operation.requestBody?.content['application/json'].schema).toMatchObject({ type: 'object', additionalProperties: true });
    }
  });

  it('documents the operator routes: public probes, metrics and status behind the operator token', () => {
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.paths['/readyz'].get.security).toEqual([]);
    expect(doc.paths['/status'].get.security).toEqual([{ operator: [] }, {}]);
    expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content ?? {})).toEqual(['text/plain']);
    expect(codesOf(doc.paths['/status'].get.responses['503'])).toEqual(['UNAVAILABLE']);
    expect(codesOf(doc.paths['/metrics'].get.responses['401'])).toEqual(['UNAUTHENTICATED']);
  });

  it('writes its descriptions for API users: no internal decision ids anywhere in the document', () => {
    expect(text.match(/D-\d+/g) ?? []).toEqual([]);
  });

  it('types every field as precisely as the contract: integers, formats, bounds, defaults, the opaque payload', () => {
    expect(text).not.toMatch(/type:\s*(number|\n\s*- number)\b/);
    expect(schema('PlateAssignmentBody').properties).toMatchObject({
      active_count: { type: 'integer', minimum: 0 },
      capacity: { type: 'integer', minimum: 0 },
      plate_date: { type: 'string', format: 'date' },
    });
    const event = schema('ActivityEventDto');
    expect(event.properties?.payload).toMatchObject({ type: ['object', 'null'], additionalProperties: true });
    expect((event.properties?.payload as { description?: string }).description).toContain('32 KB');
    // The default on the non-null alternative: a generated client must not have to send it.
    expect(event.properties?.source_type).toMatchObject({
      anyOf: [{ type: 'string', default: 'custom', pattern: '^[a-z0-9_.-]{1,64}$' }, { type: 'null' }],
    });
    expect(event.properties?.occurred_at).toMatchObject({ format: 'date-time' });
    expect(event.properties?.external_id).toMatchObject({ maxLength: 256 });
    expect(schema('ActivityBatchDto').properties?.events).toMatchObject({ minItems: 1, maxItems: 100 });
    expect(schema('StoredEventBody').properties?.payload).toMatchObject({ type: 'object', additionalProperties: true });
    expect(schema('SessionBody').properties?.session_id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(schema('MemberBody').properties?.email).toMatchObject({ format: 'email' });
    const limit = doc.paths['/sessions'].get.parameters?.find((p) => p.name === 'limit');
    expect(limit?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
  });

  it('carries a realistic example on every request body, success response and path parameter, each valid against its schema', () => {
    // OpenAPI 3.1 schemas are JSON Schema 2020-12: the document's own references resolve inside it.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'https://worktrack.test/openapi', components: doc.components });
    const validate = (schemaOf: unknown, value: unknown, where: string): void => {
      const check = ajv.compile({
        $id: `https://worktrack.test/example/${checked}`,
        ...JSON.parse(JSON.stringify(schemaOf).replaceAll('"#/components/', '"https://worktrack.test/openapi#/components/')),
      } as object);
      checked++;
      const valid = check(value);
      expect({ where, errors: valid ? [] : check.errors }).toEqual({ where, errors: [] });
    };
    let checked = 0;
    type Media = { schema: Schema; example?: unknown; examples?: Record<string, { value: unknown }> };
    const mediaExamples = (media: Media, where: string): number => {
      const values = [...(media.example === undefined ? [] : [media.example]), ...Object.values(media.examples ?? {}).map((e) => e.value)];
      for (const value of values) validate(media.schema, value, where);
      return values.length;
    };
    for (const [name, operation] of operations()) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        expect({ name, type, examples: mediaExamples(media as Media, `${name} request`) > 0 }).toEqual({ name, type, examples: true });
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          expect({ name, status, type, examples: mediaExamples(media as Media, `${name} ${status}`) > 0 }).toEqual({
            name,
            status,
            type,
            examples: true,
          });
        }
      }
      for (const parameter of (operation.parameters ?? []) as Array<Parameter & { example?: unknown }>) {
        if (parameter.in !== 'path') continue;
        expect({ name, parameter: parameter.name, example: parameter.example !== undefined }).toEqual({
          name,
          parameter: parameter.name,
          example: true,
        });
        validate(parameter.schema, parameter.example, `${name} ${parameter.name}`);
      }
    }
    // And every example a schema carries for one of its fields.
    const walk = (node: unknown, where: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const item = node as Record<string, unknown>;
      if (Array.isArray(item.examples) && 'type' in item) item.examples.forEach((value) => validate(item, value, where));
      for (const [key, value] of Object.entries(item)) if (key !== 'examples' && key !== 'example') walk(value, `${where}/${key}`);
    };
    walk(doc.components.schemas, '#/components/schemas');
    expect(checked).toBeGreaterThan(100);
    // Realistic: "Try it out" starts from these, so an impossible date or a pattern's noise would be the first thing a user sees.
    const ingest = doc.paths['/activity/events'].post.requestBody?.content['application/json'] as unknown as Media;
    expect(ingest.examples?.ActivityEventDto.value).toMatchObject({ event_type: 'deploy', occurred_at: '2026-03-02T09:30:00Z' });
  });

  it('lints clean with Redocly (recommended rules, offline)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'worktrack-openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.yaml'), text);
      writeFileSync(join(dir, 'redocly.yaml'), readFileSync(REDOCLY_CONFIG));
      writeFileSync(join(dir, '.redocly.lint-ignore.yaml'), readFileSync(REDOCLY_IGNORES));
      const stdout = await new Promise<string>((resolve) => {
        execFile(
          process.execPath,
          [REDOCLY, 'lint', 'openapi.yaml', '--format=json'],
          // No telemetry and no update check: the linter must not reach the network.
          { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, timeout: 30_000 },
          (_error, out) => resolve(out), // exits 1 on errors; the report says which
        );
      });
      const report = JSON.parse(stdout) as LintReport;
      expect(report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves the reference UI at GET /docs with every asset from this server', async () => {
    const res = await fetch(`${base}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/init.js']));
    for (const asset of assets) {
      expect(asset).toMatch(/^\/[^/]/);
      const answer = await fetch(`${base}${asset}`);
      expect({ asset, status: answer.status }).toEqual({ asset, status: 200 });
      expect((await answer.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const init = await (await fetch(`${base}/docs/init.js`)).text();
    expect(init).toContain('"url":"/openapi.yaml"');
    expect(init).toContain('"validatorUrl":null');
  });
});
