import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createWorktrackClient, REQUEST_SCHEMAS } from '@worktrack/sdk';
import { loadMcpConfig } from './mcp.config';
import { createMcpServer } from './mcp.server';
import { TOOL_NAMES } from './tools';

const SESSION_ID = '6f1d9d1e-5a4c-4b8e-9a53-0c1a2b3c4d5e';

/** An MCP client connected in memory to a server whose SDK client answers from `answer`. */
async function connected(answer: (request: Request, body: unknown) => Response) {
  const seen: Array<{ method: string; path: string; body: unknown }> = [];
  const api = createWorktrackClient({
    baseUrl: 'http://api.test',
    token: 'wt_abcdefgh_secret',
    retry: false,
    fetch: async (request) => {
      const text = await request.text();
      const body: unknown = text ? JSON.parse(text) : undefined;
      const url = new URL(request.url);
      seen.push({ method: request.method, path: `${url.pathname}${url.search}`, body });
      return answer(request, body);
    },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(api);
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, seen, close: () => Promise.all([client.close(), server.close()]) };
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('the MCP server', () => {
  it('lists the tools with input schemas taken from the API request schemas, arguments named as the API names them', async () => {
    const { client, close } = await connected(() => json(500, {}));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    expect(TOOL_NAMES).toEqual([
      'whoami',
      'start_session',
      'pause_session',
      'resume_session',
      'close_session',
      'list_sessions',
      'report_event',
      'report_usage',
      'assign_to_plate',
      'my_plate',
      'get_report',
    ]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
    // Same field definitions as the API's: the body of POST /sessions, source defaulted to timer.
    const start = REQUEST_SCHEMAS['sessions.start'].body as { properties: Record<string, unknown> };
    expect(byName.start_session.properties).toEqual({
      ...start.properties,
      source: { ...(start.properties.source as object), default: 'timer' },
    });
    expect(byName.start_session.required).toEqual(['intent_text']);
    expect(Object.keys(byName.pause_session.properties ?? {}).sort()).toEqual(['pause_reason', 'session_id']);
    expect(byName.pause_session.required).toEqual(['session_id']);
    expect(Object.keys(byName.close_session.properties ?? {}).sort()).toEqual(['closed_at', 'closing_note', 'session_id']);
    expect(Object.keys(byName.report_event.properties ?? {})).toEqual(
      expect.arrayContaining(['event_type', 'source_type', 'occurred_at', 'payload', 'external_id', 'events']),
    );
    expect(byName.report_event.required).toBeUndefined();
    expect(Object.keys(byName.list_sessions.properties ?? {})).toEqual(
      Object.keys(REQUEST_SCHEMAS['sessions.list'].params.query.properties),
    );
    await close();
  });

  it('calls the API and returns its body as structured content', async () => {
    const session = { session_id: SESSION_ID, state: 'paused' };
    const { client, seen, close } = await connected(() => json(200, { data: session }));
    const result = await client.callTool({ name: 'pause_session', arguments: { session_id: SESSION_ID, pause_reason: 'lunch' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ data: session });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual({ data: session });
    expect(seen).toEqual([{ method: 'POST', path: `/v1/sessions/${SESSION_ID}/pause`, body: { pause_reason: 'lunch' } }]);

    await client.callTool({ name: 'resume_session', arguments: { session_id: SESSION_ID } });
    expect(seen[1]).toEqual({ method: 'POST', path: `/v1/sessions/${SESSION_ID}/resume`, body: undefined });
    await client.callTool({ name: 'list_sessions', arguments: { state: 'closed', limit: 5 } });
    expect(seen[2]).toMatchObject({ method: 'GET', path: '/v1/sessions?state=closed&limit=5' });
    await client.callTool({ name: 'start_session', arguments: { intent_text: 'write the docs' } });
    expect(seen[3].body).toEqual({ intent_text: 'write the docs', source: 'timer', idempotency_key: expect.any(String) as string });
    await client.callTool({ name: 'report_event', arguments: { events: [{ event_type: 'deploy', external_id: 'e-1' }] } });
    expect(seen[4]).toEqual({
      method: 'POST',
      path: '/v1/activity/events',
      body: { events: [{ event_type: 'deploy', external_id: 'e-1' }] },
    });
    await close();
  });

  it('answers API errors and invalid arguments as tool errors carrying the D-2 code', async () => {
    const { client, seen, close } = await connected(() =>
      json(409, { error: { code: 'SESSION_STATE_CONFLICT', message: 'The session is paused; only an active session can be paused.' } }),
    );
    const conflict = await client.callTool({ name: 'pause_session', arguments: { session_id: SESSION_ID } });
    expect(conflict.isError).toBe(true);
    expect((conflict.content as Array<{ text: string }>)[0].text).toBe(
      'SESSION_STATE_CONFLICT: The session is paused; only an active session can be paused.',
    );

    const invalid = await client.callTool({
      name: 'report_event',
      arguments: { events: [{ event_type: 'ok' }, { event_type: 'Not Valid' }] },
    });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as Array<{ text: string }>)[0].text).toMatch(/^VALIDATION_FAILED: .*events\[1\]\.event_type/);
    const missing = await client.callTool({ name: 'close_session', arguments: {} });
    expect((missing.content as Array<{ text: string }>)[0].text).toMatch(/^VALIDATION_FAILED: .*session_id/);
    const unknown = await client.callTool({ name: 'drop_tables', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as Array<{ text: string }>)[0].text).toMatch(/^NOT_FOUND: /);
    // Invalid arguments never reach the API.
    expect(seen).toHaveLength(1);
    await close();
  });
});

describe('the stdio configuration', () => {
  it('refuses to start without WORKTRACK_URL or WORKTRACK_TOKEN, naming the variable', () => {
    expect(() => loadMcpConfig({ WORKTRACK_TOKEN: 'wt_x_y' })).toThrow(/WORKTRACK_URL is not set/);
    expect(() => loadMcpConfig({ WORKTRACK_URL: 'http://localhost:3000' })).toThrow(/WORKTRACK_TOKEN is not set/);
    expect(() => loadMcpConfig({ WORKTRACK_URL: 'localhost:3000', WORKTRACK_TOKEN: 't' })).toThrow(
      /WORKTRACK_URL must be an http\(s\) URL/,
    );
    expect(loadMcpConfig({ WORKTRACK_URL: 'http://localhost:3000', WORKTRACK_TOKEN: 't' })).toEqual({
      WORKTRACK_URL: 'http://localhost:3000',
      WORKTRACK_TOKEN: 't',
    });
  });
});
