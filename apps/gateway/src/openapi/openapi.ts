import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  DocumentBuilder,
  SwaggerModule,
  type HeaderObject,
  type MediaTypeObject,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type PathItemObject,
  type ReferenceObject,
  type SchemaObject,
  type ServerObject,
} from '@nestjs/swagger';
import { ErrorCode } from '@worktrack/contracts';
import { GatewayConfig } from '../gateway.config';
import { ERROR_CODES_EXTENSION, PUBLIC_EXTENSION } from './api-responses';
import { ERROR_SCHEMAS, errorResponses } from './error-responses';
import { exampleOf as exampleFrom, MissingExampleError } from './examples';
import { normalizeDocument } from './oas31';
import { MCP_TAG, MCP_TAG_DESCRIPTION, mcpPath } from './mcp-path';
import { OPERATOR_SCHEME, operatorPaths } from './operator-paths';
import { DOCS_PATH, OPENAPI_PATH } from './reference-ui';
import { SCHEMA_PREFIX, validationSchemas } from './validation-schemas';

export const BEARER_SCHEME = 'bearer';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Descriptions of the operation tags: one per controller, named after it by @nestjs/swagger. */
const TAGS: Record<string, string> = {
  Me: 'The member the credential acts as, and changes to its own profile.',
  Members:
    "Your workspace's members, listed to every member (plain members see their active teammates' names); owners and admins manage them: daily plate capacity, role, deactivation.",
  Tokens: "The caller's own API tokens (first-party surface).",
  Agents: 'Agent identities, each registered with its token.',
  Activity: 'Activity events: ingestion and the timeline.',
  Sessions: 'Work sessions: start, pause, resume, close and list.',
  Plate: "Items on a teammate's daily plate.",
  Connectors:
    'Built-in connectors: GitHub and Slack webhooks and ICS calendar feeds, written as a member through the same ingestion path. ' +
    'Providers deliver to `POST /hooks/github/{connector_id}` and `POST /hooks/slack/{connector_id}` (under the Webhooks tag), outside `/v1`, authenticated by their signatures.',
  Webhooks:
    'Where GitHub and Slack deliver to a connector: outside `/v1`, authenticated by the provider signature instead of a bearer credential.',
  [MCP_TAG]: MCP_TAG_DESCRIPTION,
  'Sign-in':
    'People signing in from the web app: password, invite links, browser sessions with a short access token and a refresh cookie, ' +
    'and the public keys of those access tokens at `/.well-known/jwks.json`.',
  Invites: 'Owners and admins invite people by email; the one-time link creates the member and signs it in.',
  Usage:
    'What agents and tools consumed: LLM tokens and cost per model call, deduplicated by the provider id and linked to the work session it happened in.',
  ModelPrices: "The workspace's model price list (USD per million tokens), from which a record without a reported cost gets its cost.",
  WebhookEndpoints:
    'Outbound webhooks: owners and admins register HTTPS endpoints for event types; deliveries are signed by the Standard Webhooks scheme, retried for a day and logged.',
  Reports:
    'Where the time, the events and the spend went: totals per member, kind, work type, project, goal, day or week; sessions, activity and plates. JSON, or CSV with `Accept: text/csv`.',
  WebhookMessages: 'A delivered outbound webhook message sent again, with the same `webhook-id` and body.',
  Operations:
    'Probes, metrics and status for operators, outside `/v1`. The probes are public; `/metrics` and `/status` need the operator token when one is configured.',
};

const DESCRIPTION = [
  'The work-tracking API for humans and AI agents.',
  'Every path is relative to the version prefix `/v1`. Requests with a body use `Content-Type: application/json`; unknown fields are rejected.',
  'Success bodies are `{ "data": … }`. Errors are `{ "error": { "code", "message", "details"? } }`: clients branch on `code`, listed with each response.',
  'Every response carries `X-Request-Id`. Each member may make 600 requests per rolling minute; responses to authenticated requests carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`, and a 429 `Retry-After`.',
].join('\n\n');

const REQUEST_ID_PARAMETER: ParameterObject = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description: 'Echoed in the response when it is 1–128 of these characters; otherwise a new UUID is used.',
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
    'X-Request-Id': { description: "The client's request id, or a new UUID.", required: true, schema: { type: 'string' } },
  };
  const always = status < 300 || [404, 409, 429].includes(status);
  if (always || [400, 403, 500, 503].includes(status)) {
    headers['RateLimit-Limit'] = integerHeader('Requests allowed per member in the rolling minute.', always);
    headers['RateLimit-Remaining'] = integerHeader('Requests the member may still make now.', always);
    headers['RateLimit-Reset'] = integerHeader('Seconds until the window allows another request.', always);
  }
  if (status === 429) headers['Retry-After'] = integerHeader('Seconds to wait before retrying.', true);
  if (status === 503) headers['Retry-After'] = integerHeader('Seconds to wait before retrying.', true);
  return headers;
}

/** The codes every authenticated operation can answer with, and those of a body or of parameters. */
const ALWAYS: ErrorCode[] = [
  ErrorCode.UNAUTHENTICATED,
  ErrorCode.RATE_LIMITED,
  ErrorCode.INTERNAL,
  ErrorCode.UNAVAILABLE,
  // The query string of every request is checked (NUL, lone surrogates, prototype keys), and so is the size of its headers (D-37).
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.PROTOTYPE_POISONING,
  ErrorCode.HEADERS_TOO_LARGE,
  // A body sent where none is expected is judged like any body: its encoding and media type (http/input-guard.ts), its size.
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
];
const WITH_BODY: ErrorCode[] = [
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.INVALID_JSON,
  ErrorCode.PROTOTYPE_POISONING,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
];
const WITH_PARAMETERS: ErrorCode[] = [ErrorCode.VALIDATION_FAILED, ErrorCode.PROTOTYPE_POISONING];

const isParameter = (p: ParameterObject | ReferenceObject): p is ParameterObject => 'in' in p;

/** Security, error responses, headers and the request-id parameter of one /v1 operation. */
function completeOperation(operation: OperationObject, where: string): void {
  const extensions = operation as OperationObject & Record<string, unknown>;
  const declared = (extensions[ERROR_CODES_EXTENSION] as ErrorCode[] | undefined) ?? [];
  delete extensions[ERROR_CODES_EXTENSION];
  // A sign-in route takes no bearer: no member's rate limit either, so no RateLimit-* headers.
  const isPublic = extensions[PUBLIC_EXTENSION] === true;
  delete extensions[PUBLIC_EXTENSION];
  const headers = isPublic ? publicHeadersFor : headersFor;

  const codes = [...ALWAYS, ...declared];
  if (operation.requestBody) codes.push(...WITH_BODY);
  if ((operation.parameters ?? []).some((p) => isParameter(p) && (p.in === 'path' || p.in === 'query'))) codes.push(...WITH_PARAMETERS);
  // A path parameter longer than any id the API issues matches no route.
  if ((operation.parameters ?? []).some((p) => isParameter(p) && p.in === 'path')) codes.push(ErrorCode.NOT_FOUND);

  for (const [status, response] of Object.entries(operation.responses)) {
    if (Number(status) >= 400) throw new Error(`${where}: document error responses with @ApiErrors(...codes), not @ApiResponse(${status})`);
    if (response && !('$ref' in response)) response.headers = { ...headers(Number(status)), ...response.headers };
  }
  Object.assign(operation.responses, errorResponses(codes, headers));
  operation.security = isPublic ? [] : [{ [BEARER_SCHEME]: [] }];
  operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/RequestId' }];
}

/**
 * Provider webhooks (outside the prefix): the provider's signature is the
 * credential, so no bearer; a per-address limit instead of the member's.
 */
const HOOK_CODES: ErrorCode[] = [
  ErrorCode.HEADERS_TOO_LARGE,
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.INVALID_JSON,
  ErrorCode.PROTOTYPE_POISONING,
  ErrorCode.INTERNAL,
  ErrorCode.UNAVAILABLE,
];

const hookHeadersFor = (status: number): Record<string, HeaderObject> => {
  const { 'X-Request-Id': requestId, 'Retry-After': retryAfter } = headersFor(status);
  return { 'X-Request-Id': requestId, ...(retryAfter ? { 'Retry-After': retryAfter } : {}) };
};

const publicHeadersFor = (status: number): Record<string, HeaderObject> => hookHeadersFor(status);

function completeHookOperation(operation: OperationObject): void {
  const extensions = operation as OperationObject & Record<string, unknown>;
  const declared = (extensions[ERROR_CODES_EXTENSION] as ErrorCode[] | undefined) ?? [];
  delete extensions[ERROR_CODES_EXTENSION];
  for (const response of Object.values(operation.responses)) {
    if (response && !('$ref' in response)) response.headers = { ...hookHeadersFor(200), ...response.headers };
  }
  Object.assign(operation.responses, errorResponses([...declared, ...HOOK_CODES], hookHeadersFor));
  operation.security = [];
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
function publish(scanned: OpenAPIObject, prefix: string, origin: ServerObject[]): OpenAPIObject {
  const root = `/${prefix}`;
  const paths: Record<string, PathItemObject> = {};
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(scanned.paths)) {
    // Provider webhooks, and the session JWTs' key set (D-40): outside the prefix, no bearer.
    const hook = path.startsWith('/hooks/') || path.startsWith('/.well-known/');
    if (!path.startsWith(`${root}/`) && !hook) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (hook) {
        completeHookOperation(operation);
        if (path.startsWith('/hooks/')) operation.tags = ['Webhooks'];
      } else completeOperation(operation, `${method.toUpperCase()} ${path}`);
      (operation.tags ?? []).forEach((tag) => tags.add(tag));
    }
    // Outside the prefix: the path is relative to the origin, not to the `/<prefix>` servers.
    if (hook) paths[path] = { servers: origin, ...item };
    else paths[path.slice(root.length)] = item;
  }
  // The operator routes, relative to the origin too; the headers of a route without the member's rate limit.
  Object.assign(paths, operatorPaths(origin, hookHeadersFor));
  tags.add('Operations');
  // The MCP server, relative to the origin as well, behind the API's credential and rate limit.
  Object.assign(paths, mcpPath(origin, BEARER_SCHEME, headersFor));
  tags.add(MCP_TAG);

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
  // The relative entries let the reference page call the server it is served from.
  const document: OpenAPIObject = {
    openapi,
    info: { title: info.title, description: info.description, version: info.version },
    servers,
    tags: [...tags].sort().map((name) => ({ name, ...(TAGS[name] ? { description: TAGS[name] } : {}) })),
    paths,
    components: {
      securitySchemes: {
        ...scanned.components?.securitySchemes,
        [OPERATOR_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: '`Authorization: Bearer <OPERATOR_TOKEN>`, the operator credential of the deployment (when it has one).',
        },
      },
      schemas: Object.fromEntries([...used].sort((a, b) => a.localeCompare(b)).map((name) => [name, schemas[name]])),
      parameters: { RequestId: REQUEST_ID_PARAMETER },
    },
  };
  normalizeDocument(document);
  rejectUntypedNumbers(document.components?.schemas ?? {});
  addExamples(document);
  return document;
}

/**
 * Every number of this API is a whole number: a schema of type `number`
 * is a property whose `@ApiProperty` forgot `type: 'integer'` (TypeScript's
 * `number` reaches the scanner as `Number`).
 */
function rejectUntypedNumbers(node: unknown, where = 'components.schemas'): void {
  if (Array.isArray(node)) return node.forEach((item, i) => rejectUntypedNumbers(item, `${where}[${i}]`));
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  const type = schema.type;
  if (type === 'number' || (Array.isArray(type) && type.includes('number'))) {
    throw new Error(`${where}: type number; declare @ApiProperty({ type: 'integer' }) (or a format for a real number)`);
  }
  for (const [key, value] of Object.entries(schema))
    if (key !== 'examples' && key !== 'example') rejectUntypedNumbers(value, `${where}.${key}`);
}

type Content = Record<string, MediaTypeObject>;

/**
 * A realistic example on every request body, success response and path
 * parameter, derived from the schemas (./examples.ts); a body that is one of
 * several schemas gets one named example per schema.
 */
function addExamples(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const resolve = (ref: string): unknown => schemas[ref.slice(SCHEMA_PREFIX.length)];
  const missing = new Set<string>();
  const exampleOf = (schema: unknown, where: string): unknown => {
    try {
      return exampleFrom(schema, where, resolve);
    } catch (err) {
      if (!(err instanceof MissingExampleError)) throw err;
      missing.add(err.message);
      return undefined;
    }
  };
  const exampleIn = (content: Content | undefined, where: string): void => {
    for (const media of Object.values(content ?? {})) {
      if (!media.schema || media.example !== undefined || media.examples !== undefined) continue;
      const options = 'oneOf' in media.schema ? (media.schema.oneOf ?? []) : [];
      if (options.length > 1 && options.every((o) => '$ref' in o)) {
        media.examples = Object.fromEntries(
          options.map((option) => {
            const name = option.$ref.slice(SCHEMA_PREFIX.length);
            const { title } = schemas[name] as SchemaObject;
            return [name, { summary: title ?? name, value: exampleOf(option, `${where} ${name}`) }];
          }),
        );
      } else media.example = exampleOf(media.schema, where);
    }
  };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const body = operation.requestBody;
      if (body && !('$ref' in body)) exampleIn(body.content, `${where} body`);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 300 && response && !('$ref' in response)) exampleIn(response.content, `${where} ${status}`);
      }
      for (const parameter of operation.parameters ?? []) {
        if (isParameter(parameter) && parameter.in === 'path' && parameter.schema && parameter.example === undefined) {
          parameter.example = exampleOf(parameter.schema, `${where} ${parameter.name}`);
        }
      }
    }
  }
  if (missing.size > 0) throw new Error(`examples missing:\n${[...missing].join('\n')}`);
}

/** D-6: the OpenAPI 3.1 document of the API routes the app serves under `/<prefix>`. */
export function buildOpenApiDocument(app: INestApplication, prefix: string): OpenAPIObject {
  const publicUrl = new URL(app.get(GatewayConfig).PUBLIC_URL);
  const variables = {
    scheme: { enum: ['https', 'http'], default: publicUrl.protocol.slice(0, -1), description: 'How the deployment is reached.' },
    host: { default: publicUrl.host, description: 'The host name (and port) of the deployment.' },
  };
  const origin: ServerObject[] = [
    { url: '{scheme}://{host}', description: 'The deployment.', variables },
    { url: '/', description: 'The server this document is served from.' },
  ];
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('worktrack API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0')
    .addServer(`{scheme}://{host}/${prefix}`, 'The deployment, with the API version prefix: every path below is relative to it.', variables)
    .addServer(`/${prefix}`, 'The server this document is served from, with the API version prefix.')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'wt_<token_id>_<secret> API token, or a session JWT',
        description:
          '`Authorization: Bearer <credential>`: an API token `wt_<8 base32>_<43 base62>` (scope `full` or `report_only`) or a session JWT of the first-party app.',
      },
      BEARER_SCHEME,
    )
    .build();
  const scanned = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey: string, methodKey: string) =>
      `${controllerKey.replace(/Controller$/, '').replace(/^./, (c) => c.toLowerCase())}.${methodKey}`,
  });
  return publish(scanned, prefix, origin);
}

/**
 * D-6: serves the document at GET /openapi.yaml, outside the prefix and
 * public. The one route the gateway does not declare in a controller:
 * @nestjs/swagger registers its YAML route itself, from the document built
 * here once every controller is known. The reference page that reads it is
 * ./reference-ui.ts.
 */
export function mountApiDocs(app: NestFastifyApplication, prefix: string): OpenAPIObject {
  const document = buildOpenApiDocument(app, prefix);
  SwaggerModule.setup(DOCS_PATH, app, document, { ui: false, raw: ['yaml'], yamlDocumentUrl: OPENAPI_PATH });
  return document;
}
