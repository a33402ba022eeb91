import type { HeaderObject, OperationObject, PathItemObject, ResponseObject, SchemaObject, ServerObject } from '@nestjs/swagger';
import { ErrorCode, SERVICE_NAMES } from '@worktrack/contracts';
import { errorResponses } from './error-responses';

/** The operator credential (OPERATOR_TOKEN) of `/metrics` and `/status`. */
export const OPERATOR_SCHEME = 'operator';

/** What every route outside the API answers besides its own statuses: the edge checks of every request and a draining gateway. */
const EDGE_CODES: ErrorCode[] = [
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.PROTOTYPE_POISONING,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.HEADERS_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  ErrorCode.INTERNAL,
  ErrorCode.UNAVAILABLE,
];
/** Behind the operator credential: refused, and limited per client address after repeated refusals. */
const GUARDED_CODES: ErrorCode[] = [ErrorCode.UNAUTHENTICATED, ErrorCode.RATE_LIMITED];

const data = (schema: SchemaObject): SchemaObject => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: { data: schema },
});

const STATUS: SchemaObject = {
  type: 'object',
  required: ['service', 'instanceId', 'version', 'schema', 'migrations', 'databaseLatencyMs', 'roundTripMs'],
  properties: {
    service: { type: 'string', enum: [...SERVICE_NAMES] },
    instanceId: { type: 'string', description: 'The replica that answered.', examples: ['sessions-7d9f8-1'] },
    version: { type: 'string', examples: ['0.1.0'] },
    schema: { type: 'string', description: 'The Postgres schema the service owns.', examples: ['sessions'] },
    migrations: {
      type: 'array',
      description: 'Migrations applied in that schema, newest first.',
      items: {
        type: 'object',
        required: ['name', 'timestamp'],
        properties: {
          name: { type: 'string', examples: ['AddIdempotencyKeys1761000000000'] },
          timestamp: { type: 'integer', examples: [1761000000000] },
        },
      },
    },
    databaseLatencyMs: { type: 'integer', minimum: 0 },
    databaseVersion: { type: 'string', examples: ['PostgreSQL 16.4'] },
    roundTripMs: { type: 'integer', minimum: 0, description: 'Gateway to the service and back, over Kafka.' },
  },
};

function operation(
  operationId: string,
  summary: string,
  description: string,
  success: ResponseObject,
  codes: ErrorCode[],
  headersFor: (status: number) => Record<string, HeaderObject>,
  guarded: boolean,
): OperationObject {
  return {
    operationId,
    summary,
    description,
    tags: ['Operations'],
    security: guarded ? [{ [OPERATOR_SCHEME]: [] }, {}] : [],
    parameters: [{ $ref: '#/components/parameters/RequestId' }],
    responses: { '200': { ...success, headers: headersFor(200) }, ...errorResponses([...EDGE_CODES, ...codes], headersFor) },
  };
}

/**
 * The operator routes served outside the API prefix (probes from the
 * platform, `/metrics`, `/status`), relative to `origin`. Described here
 * rather than scanned: the platform's controllers carry no API documentation.
 */
export function operatorPaths(
  origin: ServerObject[],
  headersFor: (status: number) => Record<string, HeaderObject>,
): Record<string, PathItemObject> {
  const json = (description: string, schema: SchemaObject): ResponseObject => ({
    description,
    content: { 'application/json': { schema: data(schema) } },
  });
  return {
    '/healthz': {
      servers: origin,
      get: operation(
        'operations.healthz',
        'Liveness probe',
        'The process serves HTTP; dependencies are not checked. No credential.',
        json('Alive.', {
          type: 'object',
          required: ['status'],
          additionalProperties: false,
          properties: { status: { type: 'string', enum: ['ok'] } },
        }),
        [],
        headersFor,
        false,
      ),
    },
    '/readyz': {
      servers: origin,
      get: operation(
        'operations.readyz',
        'Readiness probe',
        'Kafka and the reply consumer answer and the gateway is not draining; otherwise 503 naming what failed. No credential.',
        json('Ready, with the result of each check.', {
          type: 'object',
          required: ['status', 'checks'],
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: ['ready'] },
            checks: { type: 'object', additionalProperties: { type: 'string' }, examples: [{ kafka: 'ok', replies: 'ok' }] },
          },
        }),
        [],
        headersFor,
        false,
      ),
    },
    '/metrics': {
      servers: origin,
      get: operation(
        'operations.metrics',
        'Prometheus metrics',
        'The Prometheus text exposition of this replica. Needs the operator token when one is configured.',
        {
          description: 'The metrics.',
          content: {
            'text/plain': {
              schema: { type: 'string', examples: ['# TYPE worktrack_rate_limited_total counter\nworktrack_rate_limited_total 0\n'] },
            },
          },
        },
        GUARDED_CODES,
        headersFor,
        true,
      ),
    },
    '/status': {
      servers: origin,
      get: operation(
        'operations.status',
        'Status of every service',
        'One request crosses the gateway, Kafka and every service’s database and comes back; 503 names the services that did not answer in time. Needs the operator token when one is configured.',
        json('Every service answered.', {
          type: 'object',
          required: ['services'],
          additionalProperties: false,
          properties: { services: { type: 'array', items: STATUS } },
        }),
        GUARDED_CODES,
        headersFor,
        true,
      ),
    },
  };
}
