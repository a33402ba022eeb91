// Generates the typed SDK's wire types (libs/sdk/src/generated/) from the
// OpenAPI document the gateway serves at GET /openapi.yaml (D-6), built the
// same way in process — without Kafka, Redis or Postgres: the Nest app is
// created in preview mode (controllers and providers scanned, never
// instantiated). Usage: npm run generate:sdk [-- --check] [-- --from <url>].
// A unit test (scripts/generate-sdk.spec.ts) fails when the committed files
// are stale; e2e/sdk.e2e-spec.ts checks them against a running gateway.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { parse } from 'yaml';
import { ErrorCode } from '@worktrack/contracts';
import { createLogger, loadConfig, Metrics } from '@worktrack/platform';
import { API_PREFIX, applyApiPrefix } from '../apps/gateway/src/gateway.app';
import { GatewayConfig } from '../apps/gateway/src/gateway.config';
import { GatewayModule } from '../apps/gateway/src/gateway.module';
import { buildOpenApiDocument } from '../apps/gateway/src/openapi/openapi';

const ROOT = join(__dirname, '..');
/** Resolves from the source tree and from dist/ (scripts/run.mjs runs the compiled copy). */
const REPO = __dirname.includes(`${join('dist', 'scripts')}`) ? join(ROOT, '..') : ROOT;
export const GENERATED_DIR = join(REPO, 'libs', 'sdk', 'src', 'generated');

const HEADER = (what: string): string =>
  [
    '// GENERATED FILE — DO NOT EDIT.',
    `// ${what}`,
    '// Regenerate with `npm run generate:sdk` (scripts/generate-sdk.ts); a unit test fails when it is stale.',
    '',
  ].join('\n');

/** The published OpenAPI 3.1 document, exactly as the gateway builds it for GET /openapi.yaml. */
export async function buildPublishedDocument(): Promise<OpenAPI3> {
  // Defaults only: the document does not depend on the environment.
  const config = loadConfig(GatewayConfig, { NODE_ENV: 'development' });
  const logger = createLogger('gateway', 'silent', 'sdk-generator');
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.forRoot(config, logger, new Metrics('gateway')),
    new FastifyAdapter(),
    {
      preview: true,
      logger: false,
      abortOnError: false,
    },
  );
  try {
    applyApiPrefix(app);
    // A JSON round trip: the generator and the served YAML see plain data.
    return JSON.parse(JSON.stringify(buildOpenApiDocument(app, API_PREFIX))) as OpenAPI3;
  } finally {
    await app.close();
  }
}

/**
 * File name (under libs/sdk/src/generated) → content (as openapi-typescript
 * prints it: the directory is not formatted), from the document built in
 * process, or from a served one.
 */
export async function renderSdkSources(document?: OpenAPI3): Promise<Record<string, string>> {
  const resolved = document ?? (await buildPublishedDocument());
  const types = astToString(await openapiTS(resolved, { alphabetize: true }));
  const codes = Object.values(ErrorCode);
  const errorCodes = [
    '/** D-2: every stable error code the API can answer with (`error.code`). */',
    'export const ERROR_CODES = [',
    ...codes.map((code) => `  '${code}',`),
    '] as const;',
    '',
    'export type ErrorCode = (typeof ERROR_CODES)[number];',
    '',
  ].join('\n');
  return {
    'request-schemas.ts':
      HEADER("JSON Schemas of every operation's path, query and body, from the OpenAPI document (GET /openapi.yaml), references inlined.") +
      requestSchemasSource(resolved),
    'openapi.ts': HEADER('TypeScript types of the worktrack API, from its OpenAPI document (GET /openapi.yaml).') + types,
    'error-codes.ts': HEADER('The D-2 error codes, from libs/contracts/src/error-codes.ts.') + errorCodes,
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Json;
}

/** A copy of `node` with every `#/components/schemas/…` reference replaced by the schema (the document has no cycles). */
function inline(node: Json, schemas: Record<string, Json>, depth = 0): Json {
  if (depth > 32) throw new Error('schema references nest too deep (a cycle?)');
  if (Array.isArray(node)) return node.map((item) => inline(item, schemas, depth + 1));
  if (node === null || typeof node !== 'object') return node;
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const target = schemas[ref.slice('#/components/schemas/'.length)];
    if (target === undefined) throw new Error(`unresolved ${ref}`);
    const { $ref: _ref, ...siblings } = node;
    void _ref;
    return {
      ...(inline(target, schemas, depth + 1) as Record<string, Json>),
      ...(inline(siblings, schemas, depth + 1) as Record<string, Json>),
    };
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value, schemas, depth + 1)]));
}

/** One object schema of the parameters `where` (path, query) an operation takes. */
function parametersSchema(parameters: ParameterObject[], where: string, schemas: Record<string, Json>): Json {
  const chosen = parameters.filter((p) => p.in === where);
  return {
    type: 'object',
    properties: Object.fromEntries(
      chosen.map((p) => [
        p.name,
        inline({ ...(p.schema as Record<string, Json>), ...(p.description ? { description: p.description } : {}) }, schemas),
      ]),
    ),
    required: chosen.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

/** `operationId → { method, path, summary, params: { path, query }, body }`, as a TypeScript constant. */
function requestSchemasSource(document: OpenAPI3): string {
  const schemas = (document.components?.schemas ?? {}) as unknown as Record<string, Json>;
  const operations: Record<string, Json> = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Record<string, Json>>)) {
      if (typeof operation !== 'object' || operation === null || typeof operation.operationId !== 'string') continue;
      const parameters = ((operation.parameters ?? []) as Json[]).filter(
        (p): p is ParameterObject & Json => typeof p === 'object' && p !== null && 'in' in p,
      );
      const body = (operation.requestBody as { content?: Record<string, { schema?: Json }> } | undefined)?.content?.['application/json']
        ?.schema;
      operations[operation.operationId] = {
        method: method.toUpperCase(),
        path,
        summary: operation.summary ?? null,
        description: operation.description ?? null,
        params: { path: parametersSchema(parameters, 'path', schemas), query: parametersSchema(parameters, 'query', schemas) },
        body: body === undefined ? null : inline(body, schemas),
      };
    }
  }
  const sorted = Object.fromEntries(Object.entries(operations).sort(([a], [b]) => a.localeCompare(b)));
  return [
    '/** Request schemas (JSON Schema 2020-12) of each operation, by operationId. */',
    `export const REQUEST_SCHEMAS = ${JSON.stringify(sorted, null, 2)} as const;`,
    '',
    'export type OperationId = keyof typeof REQUEST_SCHEMAS;',
    '',
  ].join('\n');
}

/** The document a running gateway serves (D-6). */
async function fetchServedDocument(url: string): Promise<OpenAPI3> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return parse(await res.text()) as OpenAPI3;
}

/**
 * Writes the files; with `--check`, compares them with the committed ones
 * instead and exits 1 when any differs; with `--from <url>`, generates from
 * the document a running gateway serves rather than the one built in process.
 */
async function main(args: string[]): Promise<void> {
  const at = args.indexOf('--from');
  const from = at >= 0 ? args[at + 1] : undefined;
  if (at >= 0 && !from) throw new Error('--from needs the URL of an /openapi.yaml');
  const files = await renderSdkSources(from ? await fetchServedDocument(from) : undefined);
  const stale: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    const path = join(GENERATED_DIR, name);
    if (!args.includes('--check')) {
      writeFileSync(path, text);
      console.log(`wrote ${path}`);
    } else if (!existsSync(path) || readFileSync(path, 'utf8') !== text) stale.push(`libs/sdk/src/generated/${name}`);
  }
  if (stale.length > 0) {
    console.error(`stale: ${stale.join(', ')} (run npm run generate:sdk)`);
    process.exitCode = 1;
  } else if (args.includes('--check')) console.log(`up to date${from ? ` with ${from}` : ''}`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
