// The worktrack MCP server over stdio: an agent runtime starts it with
// WORKTRACK_URL and WORKTRACK_TOKEN (apps/mcp/README.md). stdout carries the
// protocol only; diagnostics go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createWorktrackClient } from '@worktrack/sdk';
import { loadMcpConfig, McpConfigError } from './mcp.config';
import { createMcpServer } from './mcp.server';

async function main(): Promise<void> {
  const config = loadMcpConfig(process.env);
  const client = createWorktrackClient({ baseUrl: config.WORKTRACK_URL, token: config.WORKTRACK_TOKEN });
  const server = createMcpServer(client);
  const transport = new StdioServerTransport();
  const stop = (): void => {
    void server.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.once('end', stop);
  await server.connect(transport);
}

main().catch((err: unknown) => {
  console.error(err instanceof McpConfigError ? `worktrack-mcp: ${err.message}` : err);
  process.exit(err instanceof McpConfigError ? 2 : 1);
});
