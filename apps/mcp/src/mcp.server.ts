import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { WorktrackClient } from '@worktrack/sdk';
import { WorktrackTools } from './tools';

export const MCP_SERVER_INFO = { name: 'worktrack', version: '1.0.0' };

const INSTRUCTIONS = [
  'worktrack tracks work sessions and activity for humans and agents.',
  'Start a session with start_session before working, report what you do with report_event (give each event a stable external_id so retries count once), ' +
    'and close_session with a closing_note when done. Tool errors start with a stable code (e.g. SESSION_STATE_CONFLICT) followed by a message.',
].join(' ');

/**
 * An MCP server whose tools call the public worktrack API through `client`
 * (the caller's credential): it is a client of the API, never a way around
 * it, so scopes and rate limits apply as they do to any request.
 */
export function createMcpServer(client: WorktrackClient): Server {
  const tools = new WorktrackTools(client);
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list() }));
  server.setRequestHandler(CallToolRequestSchema, (request) => tools.call(request.params.name, request.params.arguments));
  return server;
}
