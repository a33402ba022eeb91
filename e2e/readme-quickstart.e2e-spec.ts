import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { transformSync } from '@swc/core';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import {
  memberWithToken,
  repoRoot,
  runToEnd,
  startAppProcess,
  type AppProcess,
  type ChildRun as Run,
  type MemberWithToken,
} from '@worktrack/testing';
import { call } from './http';

/**
 * The README's quickstarts, run as a reader would run them: each block marked
 * `<!-- quickstart:<name> -->` is taken from README.md as it is, with only the
 * API address and token (the environment the README tells the reader to set)
 * pointing at a stack this test starts.
 */

interface Block {
  lang: string;
  code: string;
}

/** The fenced block right after each `<!-- quickstart:<name> -->` marker. */
function quickstartBlocks(markdown: string): Map<string, Block> {
  const blocks = new Map<string, Block>();
  const pattern = /<!-- quickstart:([a-z-]+) -->\s*\n```([a-z]*)\n([\s\S]*?)\n```/g;
  for (const match of markdown.matchAll(pattern)) blocks.set(match[1], { lang: match[2], code: match[3] });
  return blocks;
}

function run(command: string, args: string[], env: Record<string, string>, cwd = repoRoot()): Promise<Run> {
  return runToEnd(spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

interface StoredEvent {
  event_type: string;
  source_type: string;
  external_id: string | null;
  payload: Record<string, unknown>;
}

const run8 = randomUUID().slice(0, 8);

describe('README quickstarts', () => {
  jest.setTimeout(300_000); // processes on a shared machine
  const blocks = quickstartBlocks(readFileSync(join(repoRoot(), 'README.md'), 'utf8'));
  let apps: AppProcess[] = [];
  let gateway: AppProcess;
  let home: string;

  /** A new member per quickstart: each starts from an empty timeline and no sessions. */
  const reader = (name: string): MemberWithToken => memberWithToken({ workspace: `readme-${run8}`, email: `${name}-${run8}@example.com` });

  /** What the README asks the reader to export, and nothing of this process's own environment but PATH. */
  const env = (m: MemberWithToken, extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    HOME: home,
    WORKTRACK_QUEUE_DIR: join(home, 'queue'),
    WORKTRACK_URL: gateway.url,
    WORKTRACK_TOKEN: m.token,
    ...extra,
  });

  const events = async (m: MemberWithToken, source: string): Promise<StoredEvent[]> => {
    const res = await call<{ data: StoredEvent[] }>(gateway.url, 'GET', `/v1/activity/events?source_type=${source}&limit=100`, {
      token: m.token,
    });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const sessions = async (m: MemberWithToken) =>
    (
      await call<{ data: Array<{ session_id: string; intent_text: string; state: string }> }>(gateway.url, 'GET', '/v1/sessions', {
        token: m.token,
      })
    ).body.data;

  beforeAll(async () => {
    apps = await Promise.all(['identity', 'ingestion', 'sessions', 'plate'].map((app) => startAppProcess(app, {}, 120_000)));
    gateway = await startAppProcess('gateway', {}, 120_000);
    home = mkdtempSync(join(tmpdir(), 'wt-readme-'));
  });

  afterAll(async () => {
    await Promise.all([gateway, ...apps].filter(Boolean).map((p) => p.stop()));
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('has the five quickstarts', () => {
    expect([...blocks.keys()].sort()).toEqual(['ci', 'cli', 'curl', 'mcp', 'sdk']);
    expect(blocks.get('curl')!.lang).toBe('sh');
    expect(blocks.get('cli')!.lang).toBe('sh');
    expect(blocks.get('sdk')!.lang).toBe('ts');
    expect(blocks.get('mcp')!.lang).toBe('json');
    expect(blocks.get('ci')!.lang).toBe('yaml');
  });

  it('curl: reports an event and reads it back', async () => {
    const m = reader('curl');
    const res = await run('bash', ['-euo', 'pipefail', '-c', blocks.get('curl')!.code], env(m));
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).toContain('"accepted":1');
    expect(res.stdout).toContain('"external_id":"qs-curl-1"');
    expect(await events(m, 'quickstart')).toEqual([
      expect.objectContaining({ event_type: 'deploy', external_id: 'qs-curl-1', payload: { env: 'prod' } }),
    ]);
  });

  it('SDK: the snippet type-checks against @worktrack/sdk and runs: a session, an event and the spend of a model call', async () => {
    const m = reader('sdk');
    const dir = mkdtempSync(join(tmpdir(), 'wt-readme-sdk-'));
    try {
      const file = join(dir, 'quickstart.ts');
      writeFileSync(file, blocks.get('sdk')!.code);
      // Type-check as a user's project would, with the package's types.
      const program = ts.createProgram([file], {
        strict: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10,
        esModuleInterop: true,
        skipLibCheck: true,
        noEmit: true,
        types: ['node'],
        typeRoots: [join(repoRoot(), 'node_modules', '@types')],
        baseUrl: repoRoot(),
        paths: { '@worktrack/sdk': [join(repoRoot(), 'libs', 'sdk', 'src', 'index.ts')] },
      });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(diagnostics).toEqual([]);
      // Compile it the way scripts/run.mjs does (swc), and run it with the built package installed
      // as node_modules/@worktrack/sdk (scripts/run.mjs itself would rebuild dist/ under the running apps).
      const { code } = transformSync(blocks.get('sdk')!.code, {
        filename: 'quickstart.ts',
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
      });
      writeFileSync(join(dir, 'quickstart.js'), code);
      mkdirSync(join(dir, 'node_modules', '@worktrack'), { recursive: true });
      symlinkSync(join(repoRoot(), 'dist', 'libs', 'sdk', 'src'), join(dir, 'node_modules', '@worktrack', 'sdk'));
      const res = await run(process.execPath, [join(dir, 'quickstart.js')], env(m), dir);
      expect(res).toMatchObject({ code: 0, stderr: '' });
      expect(res.stdout).toMatch(/^.*: session [0-9a-f-]{36} closed\n$/);
      expect(await events(m, 'quickstart')).toEqual([expect.objectContaining({ event_type: 'test.run', external_id: 'qs-sdk-1' })]);
      const closedSessions = await sessions(m);
      expect(closedSessions).toEqual([expect.objectContaining({ intent_text: 'try the SDK', state: 'closed' })]);
      // The agent's spend (D-45): cache reads added into input, the message id as external_id, in the session it named.
      const usage = await call<{ data: Array<Record<string, unknown>> }>(gateway.url, 'GET', '/v1/usage', { token: m.token });
      expect(usage.body.data).toEqual([
        expect.objectContaining({
          external_id: 'msg_qs_sdk_1',
          provider: 'anthropic',
          input_tokens: 4900,
          cache_read_input_tokens: 4000,
          output_tokens: 350,
          cost: { amount: '0.0084', currency: 'USD' },
          cost_source: 'reported',
          session_id: closedSessions[0].session_id,
        }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('CLI: me, a session, an event and a batch', async () => {
    const m = reader('cli');
    const res = await run('bash', ['-euo', 'pipefail', '-c', blocks.get('cli')!.code], env(m));
    expect(res).toMatchObject({ code: 0 });
    expect(res.stdout).toContain(`member_id: ${m.memberId}`);
    expect(res.stdout).toMatch(/accepted 2 events \(0 duplicates\), 0 failed, 0 queued offline/);
    expect(JSON.parse(res.stdout.trim().split('\n').pop()!)).toMatchObject({ intent_text: 'write the quickstart', state: 'closed' });
    const stored = await events(m, 'quickstart');
    expect(stored.map((e) => e.external_id).sort()).toEqual(['qs-cli-1', 'qs-cli-2', 'qs-cli-3']);
    expect(stored.find((e) => e.external_id === 'qs-cli-1')).toMatchObject({ event_type: 'deploy', payload: { env: 'staging' } });
  });

  it('MCP: the configuration snippet is valid JSON, its entry point exists and the server answers as the member', async () => {
    const m = reader('mcp');
    const config = JSON.parse(blocks.get('mcp')!.code) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    const server = config.mcpServers.worktrack;
    expect(server.command).toBe('node');
    expect(Object.keys(server.env).sort()).toEqual(['WORKTRACK_TOKEN', 'WORKTRACK_URL']);
    // "/path/to/worktrack" is the reader's checkout: this one.
    const args = server.args.map((arg) => arg.replace('/path/to/worktrack', repoRoot()));
    expect(args).toEqual([join(repoRoot(), 'dist', 'apps', 'mcp', 'src', 'main.js')]);
    expect(existsSync(args[0])).toBe(true);
    const { WORKTRACK_URL, WORKTRACK_TOKEN } = env(m);
    const client = new Client({ name: 'readme-quickstart', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: server.command,
        args,
        env: { PATH: process.env.PATH ?? '', WORKTRACK_URL, WORKTRACK_TOKEN },
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('whoami');
      const whoami = await client.callTool({ name: 'whoami', arguments: {} });
      expect(whoami.isError).toBeFalsy();
      expect(JSON.stringify(whoami.content)).toContain(m.memberId);
    } finally {
      await client.close();
    }
  });

  it('CI job: the report step reports the deploy once, also when the step is re-run', async () => {
    const m = reader('ci');
    const job = parseYaml(blocks.get('ci')!.code) as {
      'report-deploy': { steps: Array<{ name?: string; run?: string; env?: Record<string, string> }> };
    };
    const step = job['report-deploy'].steps.find((s) => s.name === 'Report the deploy to worktrack')!;
    expect(step.env).toEqual({ WORKTRACK_URL: '${{ vars.WORKTRACK_URL }}', WORKTRACK_TOKEN: '${{ secrets.WORKTRACK_TOKEN }}' });
    // The runner's variables; the step's env (the workflow's vars and secrets) is the stack's address and token.
    const runner = { GITHUB_RUN_ID: String(Date.now()), GITHUB_SHA: randomUUID().replace(/-/g, '').slice(0, 40) };
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await run('bash', ['-e', '-c', step.run!], env(m, runner));
      expect(res).toMatchObject({ code: 0 });
    }
    expect(await events(m, 'ci')).toEqual([
      expect.objectContaining({
        event_type: 'deploy',
        external_id: runner.GITHUB_RUN_ID,
        payload: { env: 'prod', sha: runner.GITHUB_SHA },
      }),
    ]);
  });
});
