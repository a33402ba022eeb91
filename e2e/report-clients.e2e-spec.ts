import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  memberWithToken,
  repoRoot,
  runToEnd,
  startAppProcess,
  type AppProcess,
  type ChildRun,
  type MemberWithToken,
} from '@worktrack/testing';
import { call } from './http';

/** The `worktrack` command and the MCP server's stdio entry, built. */
const CLI = join(repoRoot(), 'dist', 'libs', 'sdk', 'src', 'cli', 'main.js');
const MCP_MAIN = join(repoRoot(), 'dist', 'apps', 'mcp', 'src', 'main.js');

const run = randomUUID().slice(0, 8);

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ type: string; text?: string }>;
}

/**
 * The report clients against the real stack (D-50, D-51): `worktrack report`
 * as a table and as CSV, and the MCP tool `get_report` over stdio and over
 * streamable HTTP, all reading a hand-computed day: one manual block of
 * 1 h 30 min (5,400 s) on 2026-06-10 in UTC.
 */
describe('reports through the CLI and the MCP server, end to end', () => {
  jest.setTimeout(180_000);
  const apps: AppProcess[] = [];
  const clients: Client[] = [];
  let gateway: AppProcess;
  let member: MemberWithToken;
  const query = { from: '2026-06-10', to: '2026-06-10', tz: 'UTC', group_by: 'day' };

  const cli = (args: string[]): Promise<ChildRun> =>
    runToEnd(
      spawn(process.execPath, [CLI, ...args], {
        cwd: repoRoot(),
        env: { PATH: process.env.PATH ?? '', HOME: repoRoot(), WORKTRACK_URL: `${gateway.url}/v1`, WORKTRACK_TOKEN: member.token },
      }),
    );
  const connect = async (transport: Transport): Promise<Client> => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    apps.push(...(await Promise.all(['identity', 'sessions', 'reporting'].map((a) => startAppProcess(a, {}, 150_000)))));
    gateway = await startAppProcess('gateway', {}, 150_000);
    apps.push(gateway);
    member = memberWithToken({ workspace: `report-clients-${run}`, email: `rc-${run}@example.com`, timezone: 'UTC' });
    const block = await call(gateway.url, 'POST', '/v1/sessions', {
      token: member.token,
      body: { intent_text: 'report clients', source: 'manual', started_at: '2026-06-10T10:00:00Z', ended_at: '2026-06-10T11:30:00Z' },
    });
    expect(block.status).toBe(201);
    // D-52: a session write is in the reports of a request that starts 2 seconds after it was answered.
    await new Promise((r) => setTimeout(r, 2_000));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(apps.map((p) => p.stop()));
  });

  it('prints the summary as a table with its totals, and as RFC 4180 CSV with --csv (D-50, D-51)', async () => {
    const args = ['report', 'summary', '--from', query.from, '--to', query.to, '--tz', 'UTC', '--group-by', 'day'];
    const table = await cli(args);
    expect({ code: table.code, stderr: table.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^summary 2026-06-10 … 2026-06-10 \(UTC\), as of /);
    // Columns by name: the group key, then the metrics.
    const header = lines[1].split(/\s+/);
    const cells = (prefix: string) =>
      Object.fromEntries(
        (lines.find((l) => l.startsWith(prefix)) ?? '').split(/\s+/).map((cell, k) => [header[k], cell] as [string, string]),
      );
    expect(header[0]).toBe('day');
    expect(cells('2026-06-10')).toMatchObject({ day: '2026-06-10', tracked_seconds: '5400', paused_seconds: '0', session_count: '1' });
    expect(cells('total')).toMatchObject({ day: 'total', tracked_seconds: '5400', paused_seconds: '0', session_count: '1' });

    const csv = await cli([...args, '--csv']);
    expect(csv.code).toBe(0);
    const rows = csv.stdout.split('\r\n');
    expect(rows[0]).toBe(
      'day,tracked_seconds,paused_seconds,session_count,linked_event_count,outside_session_event_count,usage_cost,input_tokens,output_tokens',
    );
    expect(rows[1]).toBe('2026-06-10,5400,0,1,0,0,0,0,0');
  });

  it('answers get_report over stdio and over streamable HTTP with the same hand-computed day (D-50)', async () => {
    const expected = {
      group: { day: '2026-06-10' },
      tracked_seconds: 5400,
      paused_seconds: 0,
      session_count: 1,
      linked_event_count: 0,
      outside_session_event_count: 0,
      usage_cost: '0',
      input_tokens: 0,
      output_tokens: 0,
    };
    for (const transport of [
      new StdioClientTransport({
        command: process.execPath,
        args: [MCP_MAIN],
        env: { PATH: process.env.PATH ?? '', WORKTRACK_URL: gateway.url, WORKTRACK_TOKEN: member.token },
        stderr: 'pipe',
      }),
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${member.token}` } },
      }),
    ]) {
      const client = await connect(transport);
      const answer = (await client.callTool({ name: 'get_report', arguments: query })) as ToolAnswer;
      expect(answer.isError ?? false).toBe(false);
      expect(answer.structuredContent).toMatchObject({
        data: [expected],
        meta: { tz: 'UTC', from: '2026-06-10', to: '2026-06-10', totals: { tracked_seconds: 5400, session_count: 1 } },
      });
    }
  });
});
