import type { HeaderObject, PathItemObject, SchemaObject, ServerObject } from '@nestjs/swagger';
import { ErrorCode } from '@worktrack/contracts';
import { errorResponses } from './error-responses';

/** The tag of the MCP route. */
export const MCP_TAG = 'MCP';
export const MCP_TAG_DESCRIPTION =
  'The Model Context Protocol server for AI agents, over streamable HTTP at `/mcp` (outside `/v1`): its tools call this API with the caller’s own credential, so scopes and rate limits apply.';

/** A JSON-RPC 2.0 message, as the MCP specification defines them (request, notification or response). */
const JSON_RPC_MESSAGE: SchemaObject = {
  type: 'object',
  required: ['jsonrpc'],
  additionalProperties: true,
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    method: { type: 'string', examples: ['tools/call'] },
    params: { type: 'object', additionalProperties: true },
    result: { type: 'object', additionalProperties: true },
    error: { type: 'object', additionalProperties: true },
  },
};

const CALL_EXAMPLE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'start_session', arguments: { intent_text: 'Fix the flaky login test' } },
};
const RESULT_EXAMPLE = {
  jsonrpc: '2.0',
  id: 1,
  result: {
    content: [{ type: 'text', text: '{"session_id":"0b7f3c52-8c1e-4f0e-9a55-3e1f9b0c2d41","status":"active"}' }],
    structuredContent: { session_id: '0b7f3c52-8c1e-4f0e-9a55-3e1f9b0c2d41', status: 'active' },
  },
};

/**
 * `/mcp`, served by the gateway outside the API prefix (apps/gateway/src/mcp):
 * POST carries the protocol; GET and DELETE answer 405, the server being
 * stateless (the protocol's own answer, named in the description). Described here rather than scanned: the protocol's messages are
 * JSON-RPC, not this API's DTOs.
 */
export function mcpPath(
  origin: ServerObject[],
  bearerScheme: string,
  headersFor: (status: number) => Record<string, HeaderObject>,
): Record<string, PathItemObject> {
  return {
    '/mcp': {
      servers: origin,
      post: {
        operationId: 'mcp.post',
        summary: 'Send an MCP message',
        description:
          'One JSON-RPC message of the Model Context Protocol (streamable HTTP transport, stateless): `initialize`, `tools/list`, `tools/call` and the rest. ' +
          'Tools: whoami, start_session, pause_session, resume_session, close_session, list_sessions, report_event, assign_to_plate, my_plate. ' +
          'A tool that fails answers a result with `isError: true` whose text starts with the error code. Without a valid bearer credential the answer is 401 and no tool is listed. ' +
          'GET and DELETE answer 405 with `Allow: POST`: the server is stateless, with no event stream to open and no session to end.',
        tags: [MCP_TAG],
        security: [{ [bearerScheme]: [] }],
        parameters: [
          { $ref: '#/components/parameters/RequestId' },
          {
            name: 'Accept',
            in: 'header',
            required: true,
            description: 'The MCP streamable HTTP transport requires both types.',
            schema: { type: 'string', examples: ['application/json, text/event-stream'] },
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: JSON_RPC_MESSAGE, example: CALL_EXAMPLE } },
        },
        responses: {
          '200': {
            description: 'The JSON-RPC response.',
            headers: headersFor(200),
            content: { 'application/json': { schema: JSON_RPC_MESSAGE, example: RESULT_EXAMPLE } },
          },
          '202': { description: 'A notification or response was accepted; nothing to answer.', headers: headersFor(202) },
          ...errorResponses(
            [
              ErrorCode.VALIDATION_FAILED,
              ErrorCode.PROTOTYPE_POISONING,
              ErrorCode.UNAUTHENTICATED,
              ErrorCode.RATE_LIMITED,
              ErrorCode.PAYLOAD_TOO_LARGE,
              ErrorCode.HEADERS_TOO_LARGE,
              ErrorCode.UNSUPPORTED_MEDIA_TYPE,
              ErrorCode.INTERNAL,
              ErrorCode.UNAVAILABLE,
            ],
            headersFor,
          ),
        },
      },
    },
  };
}
