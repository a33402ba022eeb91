/** The stdio server's configuration (apps/mcp/README.md): where the API is, and whose credential to use. */
export interface McpConfig {
  /** The API's base address, with or without `/v1`. */
  WORKTRACK_URL: string;
  /** An API token (`wt_…`) or a session JWT. */
  WORKTRACK_TOKEN: string;
}

export class McpConfigError extends Error {}

/** Fails fast, naming each missing or malformed variable. */
export function loadMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const problems: string[] = [];
  const url = env.WORKTRACK_URL?.trim() ?? '';
  const token = env.WORKTRACK_TOKEN?.trim() ?? '';
  if (!url) problems.push('WORKTRACK_URL is not set (the API address, e.g. http://localhost:3000)');
  else if (!/^https?:\/\//.test(url) || !URL.canParse(url))
    problems.push(`WORKTRACK_URL must be an http(s) URL (got ${JSON.stringify(url)})`);
  if (!token) problems.push('WORKTRACK_TOKEN is not set (an API token wt_… or a session JWT)');
  if (problems.length > 0) throw new McpConfigError(problems.join('; '));
  return { WORKTRACK_URL: url, WORKTRACK_TOKEN: token };
}
