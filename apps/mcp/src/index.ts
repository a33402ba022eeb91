export { createMcpServer, MCP_SERVER_INFO } from './mcp.server';
export { TOOL_NAMES, WorktrackTools, type ToolDescription, type ToolResult } from './tools';
export { loadMcpConfig, McpConfigError, type McpConfig } from './mcp.config';
