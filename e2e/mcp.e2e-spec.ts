import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createWorktrackClient, type WorktrackClient } from '@worktrack/sdk';
import { memberWithToken, repoRoot, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

const run = randomUUID().slice(0, 8);
/** The gateway's session-JWT secret (HS256), so this test can sign a session JWT as an identity provider would. */
const JWT_SECRET = `mcp-e2e-${randomUUID()}`;
const MCP_MAIN = join(repoRoot(), 'dist', 'apps', 'mcp', 'src', 'main.js');
const TOOLS = [
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
];

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ type: string; text?: string }>;
}

const textOf = (answer: ToolAnswer): string => answer.content.map((c) => c.text ?? '').join('\n');
const dataOf = <T>(answer: ToolAnswer): T => {
  if (answer.isError) throw new Error(`tool error: ${textOf(answer)}`);
  return (answer.structuredContent as { data: T }).data;
};

/** The MCP server end to end, over stdio (apps/mcp's main) and over streamable HTTP at the gateway's /mcp. */
describe('the MCP server end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let member: MemberWithToken;
  let reporter: string; // a report_only token of `member`
  let wt: WorktrackClient;
  const clients: Client[] = [];

  const stdioTransport = (token: string): Transport =>
    new StdioClientTransport({
      command: process.execPath,
      args: [MCP_MAIN],
      env: { PATH: process.env.PATH ?? '', WORKTRACK_URL: gateway.url, WORKTRACK_TOKEN: token },
      stderr: 'pipe',
    });
  const httpTransport = (token: string): Transport =>
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const connect = async (transport: Transport): Promise<Client> => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> =>
    (await client.callTool({ name, arguments: args })) as ToolAnswer;

  beforeAll(async () => {
    // Generous start-up bounds: the machine may be shared and busy.
    apps.push(
      ...(await Promise.all(['identity', 'ingestion', 'sessions', 'correlation', 'plate'].map((a) => startAppProcess(a, {}, 120_000)))),
    );
    gateway = await startAppProcess('gateway', { JWT_SECRET }, 120_000);
    apps.push(gateway);
    member = memberWithToken({ workspace: `mcp-${run}`, email: `mcp-${run}@example.com` });
    wt = createWorktrackClient({ baseUrl: gateway.url, token: member.token });
    reporter = (await wt.createToken({ name: 'mcp agent', scope: 'report_only' })).token;
  }, 300_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(apps.map((p) => p.stop()));
  });

  it('answers /mcp without a valid credential with 401 UNAUTHENTICATED before anything is listed, and GET or DELETE with 405', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'nobody', version: '0' } },
    };
    const headers = { accept: 'application/json, text/event-stream' };
    for (const token of [undefined, 'wt_aaaaaaaa_notarealsecretnotarealsecretnotarealsecr', 'not-a-jwt']) {
      const answer = await call<ErrorBody>(gateway.url, 'POST', '/mcp', { token, body: initialize, headers });
      expect({ token, status: answer.status, code: answer.body.error.code }).toEqual({ token, status: 401, code: 'UNAUTHENTICATED' });
    }
    const listing = await call<ErrorBody>(gateway.url, 'POST', '/mcp', { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers });
    expect(listing.status).toBe(401);
    await expect(connect(httpTransport('wt_aaaaaaaa_notarealsecretnotarealsecretnotarealsecr'))).rejects.toThrow();
    // Stateless: no event stream, no session to delete (405, as the protocol expects).
    for (const method of ['GET', 'DELETE']) {
      const answer = await call<ErrorBody>(gateway.url, method, '/mcp', { token: member.token, headers: { accept: 'text/event-stream' } });
      expect({ method, status: answer.status, allow: answer.headers.get('allow'), code: answer.body.error.code }).toEqual({
        method,
        status: 405,
        allow: 'POST',
        code: 'NOT_FOUND',
      });
    }
  });

  it.each([
    ['stdio', (token: string) => stdioTransport(token)],
    ['streamable HTTP', (token: string) => httpTransport(token)],
  ])(
    'over %s: lists the tools, runs a session, reports events once per external_id, and the timeline links them to it',
    async (_name, transport) => {
      const client = await connect(transport(member.token));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLS);

      expect(dataOf<{ member_id: string }>(await callTool(client, 'whoami')).member_id).toBe(member.memberId);
      const session = dataOf<{ session_id: string; state: string }>(
        await callTool(client, 'start_session', { intent_text: `mcp ${_name} ${run}`, estimated_duration_min: 20 }),
      );
      expect(session.state).toBe('active');

      const externalId = `mcp-${run}-${randomUUID()}`;
      const event = { event_type: 'agent.step', source_type: 'mcp', external_id: externalId, payload: { step: 1 } };
      const first = dataOf<{ accepted: number; deduplicated: number; event_ids: string[] }>(await callTool(client, 'report_event', event));
      const retry = dataOf<{ accepted: number; deduplicated: number; event_ids: string[] }>(await callTool(client, 'report_event', event));
      expect(first).toMatchObject({ accepted: 1, deduplicated: 0 });
      expect(retry).toEqual({ accepted: 0, deduplicated: 1, event_ids: first.event_ids });
      const batch = dataOf<{ event_ids: string[] }>(
        await callTool(client, 'report_event', { events: [{ event_type: 'agent.step', source_type: 'mcp', payload: { step: 2 } }] }),
      );

      const paused = await callTool(client, 'pause_session', { session_id: session.session_id, pause_reason: 'waiting for review' });
      expect(dataOf<{ state: string }>(paused).state).toBe('paused');
      const again = await callTool(client, 'pause_session', { session_id: session.session_id });
      expect(again.isError).toBe(true);
      expect(textOf(again)).toMatch(/^SESSION_STATE_CONFLICT: /);
      expect(dataOf<{ state: string }>(await callTool(client, 'resume_session', { session_id: session.session_id })).state).toBe('active');
      const closed = await callTool(client, 'close_session', { session_id: session.session_id, closing_note: 'done' });
      expect(dataOf<{ state: string }>(closed).state).toBe('closed');
      const listed = await callTool(client, 'list_sessions', { state: 'closed', limit: 10 });
      expect(dataOf<Array<{ session_id: string }>>(listed).map((s) => s.session_id)).toContain(session.session_id);

      // Correlation is asynchronous: both stored events end up linked to the session (a generous bound).
      const ours = new Set([...first.event_ids, ...batch.event_ids]);
      const deadline = Date.now() + 60_000;
      let linked: Array<{ event_id: string; session_id: string | null }> = [];
      for (;;) {
        const page = await wt.timeline({ session_id: session.session_id, limit: 100 });
        linked = page.data.filter((e) => ours.has(e.event_id));
        if (linked.length === ours.size || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(linked.map((e) => e.session_id)).toEqual([session.session_id, session.session_id]);
      const stored = (await wt.timeline({ source_type: 'mcp', limit: 100 })).data.filter((e) => e.external_id === externalId);
      expect(stored).toHaveLength(1);
    },
  );

  it('takes a session JWT as the bearer too, over streamable HTTP and over stdio, and its tools act as that member', async () => {
    const sessionJwt = jwt.sign({ sub: member.memberId, wid: member.workspaceId }, JWT_SECRET, { algorithm: 'HS256', expiresIn: 300 });
    for (const transport of [httpTransport(sessionJwt), stdioTransport(sessionJwt)]) {
      const client = await connect(transport);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
      expect(dataOf<{ member_id: string }>(await callTool(client, 'whoami')).member_id).toBe(member.memberId);
    }
    // A JWT signed with another secret is no credential: no tools.
    const forged = jwt.sign({ sub: member.memberId, wid: member.workspaceId }, 'not-the-secret', { algorithm: 'HS256', expiresIn: 300 });
    await expect(connect(httpTransport(forged))).rejects.toThrow();
  });

  it("puts an item on a teammate's plate with assign_to_plate, and the teammate's my_plate lists it", async () => {
    const teammate = memberWithToken({ workspace: `mcp-${run}`, email: `mcp-mate-${run}@example.com` });
    const title = `review the MCP tools ${run}`;
    const assigner = await connect(httpTransport(member.token));
    const assigned = dataOf<{ assignee_id: string; plate_date: string; overflowed: boolean }>(
      await callTool(assigner, 'assign_to_plate', { assignee_id: teammate.memberId, title }),
    );
    expect(assigned).toMatchObject({ assignee_id: teammate.memberId, overflowed: false });

    const mine = await connect(stdioTransport(teammate.token));
    const answer = await callTool(mine, 'my_plate', { date: assigned.plate_date });
    const day = dataOf<{ date: string; items: Array<{ title: string; assigned_by: string; done: boolean }> }>(answer);
    expect(day.date).toBe(assigned.plate_date);
    expect(day.items).toEqual([expect.objectContaining({ title, assigned_by: member.memberId, done: false })]);
    // The list's cursor comes along with the data, as the API answers it.
    expect(answer.structuredContent).toMatchObject({ meta: { cursor: null } });
  });

  it('keeps a report_only token to its scope: it reports and runs its own sessions, but assign_to_plate is FORBIDDEN', async () => {
    const client = await connect(httpTransport(reporter));
    const reported = await callTool(client, 'report_event', { event_type: 'agent.step', source_type: 'mcp', external_id: `ro-${run}` });
    expect(dataOf<{ accepted: number }>(reported).accepted).toBe(1);
    const session = dataOf<{ session_id: string }>(await callTool(client, 'start_session', { intent_text: 'report only' }));
    expect(dataOf<{ state: string }>(await callTool(client, 'close_session', { session_id: session.session_id })).state).toBe('closed');
    const assigned = await callTool(client, 'assign_to_plate', { assignee_id: member.memberId, title: 'not allowed' });
    expect(assigned.isError).toBe(true);
    expect(textOf(assigned)).toMatch(/^FORBIDDEN: /);
    expect(assigned.structuredContent).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });

  it('answers invalid arguments with VALIDATION_FAILED naming the field', async () => {
    const client = await connect(httpTransport(member.token));
    const answer = await callTool(client, 'report_event', { event_type: 'Not Valid!' });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/^VALIDATION_FAILED: .*event_type/);
  });

  it('refuses to start over stdio without WORKTRACK_URL or WORKTRACK_TOKEN, naming the variable', () => {
    for (const [env, missing] of [
      [{ WORKTRACK_URL: gateway.url }, 'WORKTRACK_TOKEN'],
      [{ WORKTRACK_TOKEN: member.token }, 'WORKTRACK_URL'],
    ] as const) {
      const result = spawnSync(process.execPath, [MCP_MAIN], {
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ status: result.status, named: result.stderr.includes(`${missing} is not set`) }).toEqual({ status: 2, named: true });
    }
  });
});
