import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  DocumentBuilder,
  SwaggerModule,
  type HeaderObject,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type PathItemObject,
  type ReferenceObject,
  type SchemaObject,
} from '@nestjs/swagger';
import { ErrorCode } from '@worktrack/contracts';
import { ERROR_CODES_EXTENSION } from './api-responses';
import { ERROR_SCHEMAS, errorResponses } from './error-responses';
import { normalizeDocument } from './oas31';
import { mountReferenceUi } from './reference-ui';
import { SCHEMA_PREFIX, validationSchemas } from './validation-schemas';

/** D-6: both served outside the /v1 prefix and without credentials. */
export const OPENAPI_PATH = '/openapi.yaml';
export const DOCS_PATH = '/docs';

export const BEARER_SCHEME = 'bearer';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Descriptions of the operation tags: one per controller, named after it by @nestjs/swagger. */
const TAGS: Record<string, string> = {
  Me: 'D-13: the member the credential acts as.',
  Tokens: "D-10: the caller's own API tokens (first-party surface).",
  Agents: 'D-12: agent identities, each registered with its token.',
  Activity: 'Activity events: ingestion (D-15 … D-20) and the timeline (D-21).',
  Sessions: 'Work sessions (D-22 … D-30).',
  Plate: "Items on a teammate's daily plate (D-32 … D-35).",
  Connectors:
    'Built-in connectors (D-36): GitHub and Slack webhooks and ICS calendar feeds, written as a member through the same ingestion path. ' +
    'Providers deliver to `POST /hooks/github/{connector_id}` and `POST /hooks/slack/{connector_id}` on the gateway, outside `/v1`, authenticated by their signatures.',
};

const DESCRIPTION = [
  'The work-tracking API for humans and AI agents.',
  'Every path is relative to the version prefix `/v1`. Requests with a body use `Content-Type: application/json`; unknown fields are rejected (D-3).',
  'Success bodies are `{ "data": … }` (D-1). Errors are `{ "error": { "code", "message", "details"? } }`: clients branch on `code` (D-2), listed with each response.',
  'Every response carries `X-Request-Id` (D-4). Each member may make 600 requests per rolling minute; responses to authenticated requests carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`, and a 429 `Retry-After` (D-5).',
].join('\n\n');

const REQUEST_ID_PARAMETER: ParameterObject = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description: 'D-4: echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:@/+=-]{1,128}$' },
};

const integerHeader = (description: string, required: boolean): HeaderObject => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});

/**
 * D-4 and D-5 response headers. The rate-limit guard runs after the
 * authentication and scope check, so its headers are on every response
 * produced after it (2xx, 404, 409, 429), maybe on statuses that arise on
 * either side of it (400 VALIDATION_FAILED after / INVALID_JSON before it,
 * 403 scope before / role after, 500, 503), and never on those always
 * produced before it (401; 413 and 415 from body parsing).
 */
function headersFor(status: number): Record<string, HeaderObject> {
  const headers: Record<string, HeaderObject> = {
    'X-Request-Id': { description: "D-4: the client's request id, or a new UUID.", required: true, schema: { type: 'string' } },
  };
  const always = status < 300 || [404, 409, 429].includes(status);
  if (always || [400, 403, 500, 503].includes(status)) {
    headers['RateLimit-Limit'] = integerHeader('D-5: requests allowed per member in the rolling minute.', always);
    headers['RateLimit-Remaining'] = integerHeader('D-5: requests the member may still make now.', always);
    headers['RateLimit-Reset'] = integerHeader('D-5: seconds until the window allows another request.', always);
  }
  if (status === 429) headers['Retry-After'] = integerHeader('D-5: seconds to wait before retrying.', true);
  return headers;
}

/** The codes every authenticated operation can answer with, and those of a body or of parameters. */
const ALWAYS: ErrorCode[] = [ErrorCode.UNAUTHENTICATED, ErrorCode.RATE_LIMITED, ErrorCode.INTERNAL, ErrorCode.UNAVAILABLE];
const WITH_BODY: ErrorCode[] = [
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.INVALID_JSON,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
];
const WITH_PARAMETERS: ErrorCode[] = [ErrorCode.VALIDATION_FAILED];

const isParameter = (p: ParameterObject | ReferenceObject): p is ParameterObject => 'in' in p;

/** Security, error responses, headers and the request-id parameter of one /v1 operation. */
function completeOperation(operation: OperationObject, where: string): void {
  const extensions = operation as OperationObject & Record<string, unknown>;
  const declared = (extensions[ERROR_CODES_EXTENSION] as ErrorCode[] | undefined) ?? [];
  delete extensions[ERROR_CODES_EXTENSION];

  const codes = [...ALWAYS, ...declared];
  if (operation.requestBody) codes.push(...WITH_BODY);
  if ((operation.parameters ?? []).some((p) => isParameter(p) && (p.in === 'path' || p.in === 'query'))) codes.push(...WITH_PARAMETERS);

  for (const [status, response] of Object.entries(operation.responses)) {
    if (Number(status) >= 400) throw new Error(`${where}: document error responses with @ApiErrors(...codes), not @ApiResponse(${status})`);
    if (response && !('$ref' in response)) response.headers = { ...headersFor(Number(status)), ...response.headers };
  }
  Object.assign(operation.responses, errorResponses(codes, headersFor));
  operation.security = [{ [BEARER_SCHEME]: [] }];
  operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/RequestId' }];
}

const isEmptyObjectSchema = (schema: SchemaObject | ReferenceObject | undefined): boolean =>
  schema !== undefined && !('$ref' in schema) && schema.type === 'object' && Object.keys(schema.properties ?? {}).length === 0;

/** The component schema names a part of a document refers to. */
function schemaRefsIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => schemaRefsIn(item, found));
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_PREFIX)) found.add(value.slice(SCHEMA_PREFIX.length));
      else schemaRefsIn(value, found);
    }
  }
  return found;
}

/**
 * Publishes what the scanner found: only the API under `/<prefix>` (probes,
 * metrics and status are operator routes), with paths relative to the
 * `/<prefix>` server, every operation authenticated, the error envelope,
 * the request schemas derived from validation rules, in OpenAPI 3.1 form.
 */
function publish(scanned: OpenAPIObject, prefix: string): OpenAPIObject {
  const root = `/${prefix}`;
  const paths: Record<string, PathItemObject> = {};
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(scanned.paths)) {
    if (!path.startsWith(`${root}/`)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      completeOperation(operation, `${method.toUpperCase()} ${path}`);
      (operation.tags ?? []).forEach((tag) => tags.add(tag));
    }
    paths[path.slice(root.length)] = item;
  }

  const schemas: Record<string, SchemaObject | ReferenceObject> = { ...scanned.components?.schemas };
  for (const [name, schema] of Object.entries({ ...ERROR_SCHEMAS, ...validationSchemas(schemaRefsIn([paths, schemas])) })) {
    // @nestjs/swagger leaves an empty schema for a class it met without @ApiProperty: the validation rules fill it.
    if (name in schemas && !isEmptyObjectSchema(schemas[name])) throw new Error(`two schemas are named ${name}`);
    schemas[name] = schema;
  }
  // Only what the published operations use (the scanner also saw the routes outside the prefix).
  const used = schemaRefsIn(paths);
  for (let grew = true; grew;) {
    const before = used.size;
    schemaRefsIn(
      [...used].map((name) => schemas[name]),
      used,
    );
    grew = used.size > before;
  }
  const missing = [...used].filter((name) => !schemas[name]);
  if (missing.length > 0) throw new Error(`schemas referenced but not documented: ${missing.join(', ')}`);

  const { openapi, info, servers } = scanned;
  const document: OpenAPIObject = {
    openapi,
    info: { title: info.title, description: info.description, version: info.version },
    servers,
    tags: [...tags].sort().map((name) => ({ name, ...(TAGS[name] ? { description: TAGS[name] } : {}) })),
    paths,
    components: {
      securitySchemes: scanned.components?.securitySchemes,
      schemas: Object.fromEntries([...used].sort((a, b) => a.localeCompare(b)).map((name) => [name, schemas[name]])),
      parameters: { RequestId: REQUEST_ID_PARAMETER },
    },
  };
  normalizeDocument(document);
  return document;
}

/** D-6: the OpenAPI 3.1 document of the API routes the app serves under `/<prefix>`. */
export function buildOpenApiDocument(app: INestApplication, prefix: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('worktrack API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0')
    .addServer(`/${prefix}`, 'The API version prefix: every path below is relative to it.')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'wt_<token_id>_<secret> API token, or a session JWT',
        description:
          '`Authorization: Bearer <credential>`: an API token `wt_<8 base32>_<43 base62>` (D-8, scopes `full` and `report_only`, D-9) or a session JWT (D-11).',
      },
      BEARER_SCHEME,
    )
    .build();
  const scanned = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey: string, methodKey: string) =>
      `${controllerKey.replace(/Controller$/, '').replace(/^./, (c) => c.toLowerCase())}.${methodKey}`,
  });
  return publish(scanned, prefix);
}

/**
 * D-6: serves the document at GET /openapi.yaml (@nestjs/swagger's YAML
 * route) and the Swagger UI reference at GET /docs (./reference-ui.ts).
 * Both are registered on Fastify directly: outside the prefix, and public
 * (the auth guard only guards Nest routes under /v1).
 */
export function mountApiDocs(app: NestFastifyApplication, prefix: string): OpenAPIObject {
  const document = buildOpenApiDocument(app, prefix);
  SwaggerModule.setup(DOCS_PATH, app, document, { ui: false, raw: ['yaml'], yamlDocumentUrl: OPENAPI_PATH });
  mountReferenceUi(app.getHttpAdapter().getInstance(), DOCS_PATH, OPENAPI_PATH);
  return document;
}
