import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { memberWithToken, repoRoot, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

interface UsageRow {
  usage_id: string;
  external_id: string;
  occurred_at: string;
  input_tokens: number | null;
  cost: { amount: string; currency: string } | null;
  cost_source: string;
  session_id: string | null;
}
interface Ingested {
  data: { accepted: number; deduplicated: number; usage_ids: string[] };
}

/**
 * Usage records (D-45 … D-48) through HTTP, every app a process: bad input
 * refused whole, deduplication under concurrent retries, links made and
 * remade by session changes in any order, costs computed at receipt from the
 * price list then in force.
 */
describe('usage, end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let owner: MemberWithToken;
  let plain: MemberWithToken;
  let other: MemberWithToken;

  beforeAll(async () => {
    apps.push(...(await Promise.all(['identity', 'ingestion', 'sessions', 'correlation'].map((a) => startAppProcess(a)))));
    gateway = await startAppProcess('gateway');
    apps.push(gateway);
    const workspace = `usage-${randomUUID().slice(0, 8)}`;
    owner = memberWithToken({ workspace, email: `o-${randomUUID().slice(0, 8)}@example.com` });
    plain = memberWithToken({ workspace, email: `p-${randomUUID().slice(0, 8)}@example.com`, role: 'member' });
    other = memberWithToken({ workspace: `usage-other-${randomUUID().slice(0, 8)}`, email: `x-${randomUUID().slice(0, 8)}@example.com` });
  });

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
  });

  const report = (m: MemberWithToken, body: unknown) =>
    call<Ingested & ErrorBody>(gateway.url, 'POST', '/v1/usage', { token: m.token, body });
  const list = async (m: MemberWithToken, query = ''): Promise<UsageRow[]> => {
    const res = await call<{ data: UsageRow[] }>(gateway.url, 'GET', `/v1/usage?limit=100${query}`, { token: m.token });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const eventually = async (check: () => Promise<boolean>, what: string): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const record = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    external_id: `msg_${randomUUID()}`,
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    input_tokens: 1000,
    output_tokens: 200,
    ...over,
  });

  it('refuses bad input with a 400 naming it, storing nothing (D-45)', async () => {
    const member = memberWithToken({
      workspace: `usage-bad-${randomUUID().slice(0, 8)}`,
      email: `b-${randomUUID().slice(0, 8)}@example.com`,
    });
    const foreign = await call<{ data: { session_id: string } }>(gateway.url, 'POST', '/v1/sessions', {
      token: other.token,
      body: { intent_text: 'Not yours', source: 'timer' },
    });
    expect(foreign.status).toBe(201);
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['negative tokens', { input_tokens: -1 }, 'usage[1].input_tokens', 'VALIDATION_FAILED'],
      ['non-integer tokens', { output_tokens: 1.5 }, 'usage[1].output_tokens', 'VALIDATION_FAILED'],
      [
        'cache over input',
        { input_tokens: 10, cache_read_input_tokens: 8, cache_creation_input_tokens: 3 },
        'usage[1].input_tokens',
        'VALIDATION_FAILED',
      ],
      ['a float cost', { cost: { amount: 0.01, currency: 'USD' } }, 'usage[1].cost.amount', 'VALIDATION_FAILED'],
      ['a 10-decimal cost', { cost: { amount: '0.0000000001', currency: 'USD' } }, 'usage[1].cost.amount', 'VALIDATION_FAILED'],
      ['a foreign session', { session_id: foreign.body.data.session_id }, 'usage[1].session_id', 'VALIDATION_FAILED'],
      [
        'prompt content',
        { attributes: { 'gen_ai.input.messages': [{ role: 'user' }] } },
        'usage[1].attributes["gen_ai.input.messages"]',
        'VALIDATION_FAILED',
      ],
      ['9 KB of attributes', { attributes: { note: 'x'.repeat(9 * 1024) } }, 'usage[1].attributes', 'VALIDATION_FAILED'],
      ['a secret', { attributes: { key: 'ghp_0123456789abcdefghij' } }, 'usage[1].attributes.key', 'PAYLOAD_CONTAINS_SECRET'],
    ];
    for (const [name, over, path, code] of cases) {
      const res = await report(member, { usage: [record(), record(over)] });
      expect({ name, status: res.status, code: res.body.error?.code }).toEqual({ name, status: 400, code });
      expect({ name, paths: res.body.error?.details?.map((d) => d.path) }).toEqual({
        name,
        paths: expect.arrayContaining([path]) as unknown,
      });
    }
    expect(await list(member)).toEqual([]);
  });

  it('stores a 100-record batch retried 8 times at once exactly once (D-46)', async () => {
    const member = memberWithToken({
      workspace: `usage-dup-${randomUUID().slice(0, 8)}`,
      email: `d-${randomUUID().slice(0, 8)}@example.com`,
    });
    const batch = { usage: Array.from({ length: 100 }, (_, i) => record({ cost: { amount: `0.00${i + 1}`, currency: 'USD' } })) };
    const replies = await Promise.all(Array.from({ length: 8 }, () => report(member, batch)));
    for (const r of replies) expect(r.status).toBe(202);
    const ids = replies[0].body.data.usage_ids;
    for (const r of replies) {
      expect(r.body.data.usage_ids).toEqual(ids);
      expect(r.body.data.accepted + r.body.data.deduplicated).toBe(100);
    }
    expect(replies.reduce((n, r) => n + r.body.data.accepted, 0)).toBe(100);
    const rows = await list(member);
    expect(rows).toHaveLength(100);
    expect(new Set(rows.map((r) => r.usage_id))).toEqual(new Set(ids));
    // Money counted once: 0.001 + … + 0.00100 summed exactly, as the records were sent.
    const cents = rows.reduce((n, r) => n + BigInt((r.cost?.amount ?? '0').replace('.', '').padEnd(20, '0')), 0n);
    const expected = batch.usage.reduce((n, u) => n + BigInt((u.cost as { amount: string }).amount.replace('.', '').padEnd(20, '0')), 0n);
    expect(cents).toBe(expected);
    expect(rows.every((r) => r.cost_source === 'reported')).toBe(true);
  });

  it('links usage to a session that arrives after it, and relinks on a back-dated close; a named session wins (D-48)', async () => {
    const member = memberWithToken({
      workspace: `usage-link-${randomUUID().slice(0, 8)}`,
      email: `l-${randomUUID().slice(0, 8)}@example.com`,
    });
    const now = Date.now();
    const early = await report(member, record({ occurred_at: new Date(now - 30 * 60_000).toISOString() }));
    expect(early.status).toBe(202);
    const [earlyId] = early.body.data.usage_ids;
    const manual = await call<{ data: { session_id: string } }>(gateway.url, 'POST', '/v1/sessions', {
      token: member.token,
      body: {
        intent_text: 'Recorded afterwards',
        source: 'manual',
        started_at: new Date(now - 40 * 60_000).toISOString(),
        ended_at: new Date(now - 20 * 60_000).toISOString(),
      },
    });
    expect(manual.status).toBe(201);
    const manualId = manual.body.data.session_id;
    await eventually(
      async () => (await list(member)).find((u) => u.usage_id === earlyId)?.session_id === manualId,
      'the late session linked',
    );

    const started = await call<{ data: { session_id: string; started_at: string } }>(gateway.url, 'POST', '/v1/sessions', {
      token: member.token,
      body: { intent_text: 'Live work', source: 'timer' },
    });
    const timerId = started.body.data.session_id;
    const t0 = Date.parse(started.body.data.started_at);
    const at = (ms: number): string => new Date(t0 + ms).toISOString();
    const during = await report(member, {
      usage: [
        record({ occurred_at: at(1_000) }),
        record({ occurred_at: at(3_000) }),
        record({ occurred_at: at(3_000), session_id: manualId }),
      ],
    });
    expect(during.status).toBe(202);
    const [first, later, named] = during.body.data.usage_ids;
    await eventually(async () => {
      const rows = await list(member);
      return (
        rows.find((u) => u.usage_id === first)?.session_id === timerId && rows.find((u) => u.usage_id === later)?.session_id === timerId
      );
    }, 'both linked to the timer');
    expect((await list(member)).find((u) => u.usage_id === named)?.session_id).toBe(manualId);

    while (Date.now() < t0 + 2_200) await new Promise((r) => setTimeout(r, 50));
    const closed = await call(gateway.url, 'POST', `/v1/sessions/${timerId}/close`, {
      token: member.token,
      body: { closed_at: at(2_000) },
    });
    expect(closed.status).toBe(200);
    await eventually(async () => (await list(member)).find((u) => u.usage_id === later)?.session_id === null, 'the later record unlinked');
    const rows = await list(member);
    expect(rows.find((u) => u.usage_id === first)?.session_id).toBe(timerId);
    expect(rows.find((u) => u.usage_id === named)?.session_id).toBe(manualId);
    const bySession = await list(member, `&session_id=${timerId}`);
    expect(bySession.map((u) => u.usage_id)).toEqual([first]);
  });

  it('computes cost at receipt from the price list in force, never again; reported costs stay as sent (D-47)', async () => {
    const forbidden = await call<ErrorBody>(gateway.url, 'PUT', '/v1/model-prices', { token: plain.token, body: { prices: [] } });
    expect(forbidden.status).toBe(403);
    const since = '2026-01-01T00:00:00Z';
    const put = (input: string) =>
      call<{ data: { prices: Array<{ input: string; effective_from: string }> } }>(gateway.url, 'PUT', '/v1/model-prices', {
        token: owner.token,
        body: {
          prices: [
            { provider: 'anthropic', model_pattern: 'claude-*', effective_from: since, input: '1', output: '1' },
            {
              provider: 'anthropic',
              model_pattern: 'claude-sonnet-*',
              effective_from: since,
              input,
              output: '15',
              cache_read_input: '0.3',
            },
          ],
        },
      });
    const first = await put('3');
    expect(first.status).toBe(200);
    expect(first.body.data.prices.map((p) => p.input).sort()).toEqual(['1', '3']);
    const tokens = { input_tokens: 1000, cache_read_input_tokens: 600, output_tokens: 500, reasoning_output_tokens: 100 };
    const a = await report(owner, record(tokens));
    await put('6');
    const b = await report(plain, record(tokens));
    const reported = await report(owner, record({ ...tokens, cost: { amount: '0.10', currency: 'USD' } }));
    const unpriced = await report(owner, record({ ...tokens, model: 'gpt-5' }));
    const read = (await call<{ data: { prices: unknown[] } }>(gateway.url, 'GET', '/v1/model-prices', { token: plain.token })).body.data;
    expect(read.prices).toHaveLength(2);

    const ownRows = await list(owner);
    const byId = (rows: UsageRow[], id: string): UsageRow | undefined => rows.find((r) => r.usage_id === id);
    // 400 × 3 + 600 × 0.3 + 500 × 15 per million = 1200 + 180 + 7500 = 8880 / 1e6
    expect(byId(ownRows, a.body.data.usage_ids[0])).toMatchObject({
      cost: { amount: '0.008880000', currency: 'USD' },
      cost_source: 'computed',
    });
    // 400 × 6 + 600 × 0.3 + 500 × 15 = 2400 + 180 + 7500 = 10080 / 1e6
    expect(byId(await list(plain), b.body.data.usage_ids[0])).toMatchObject({ cost: { amount: '0.010080000' }, cost_source: 'computed' });
    expect(byId(ownRows, reported.body.data.usage_ids[0])).toMatchObject({
      cost: { amount: '0.10', currency: 'USD' },
      cost_source: 'reported',
    });
    expect(byId(ownRows, unpriced.body.data.usage_ids[0])).toMatchObject({ cost: null, cost_source: 'none' });
  });

  it('lets a report_only agent report and read its own usage, not change prices (D-9, D-45); the CLI reports and lists', async () => {
    const agent = await call<{ data: { agent: { member_id: string }; token: string } }>(gateway.url, 'POST', '/v1/agents', {
      token: owner.token,
      body: { name: `bot-${randomUUID().slice(0, 6)}` },
    });
    expect(agent.status).toBe(201);
    const bot: MemberWithToken = {
      workspaceId: owner.workspaceId,
      memberId: agent.body.data.agent.member_id,
      token: agent.body.data.token,
    };
    const reported = await report(bot, record({ external_id: 'msg_bot_1' }));
    expect(reported.status).toBe(202);
    expect((await list(bot)).map((u) => u.external_id)).toEqual(['msg_bot_1']);
    expect((await list(owner)).some((u) => u.external_id === 'msg_bot_1')).toBe(false);
    const put = await call<ErrorBody>(gateway.url, 'PUT', '/v1/model-prices', { token: bot.token, body: { prices: [] } });
    expect(put.status).toBe(403);

    const cli = (args: string[]) =>
      spawnSync(process.execPath, [join(repoRoot(), 'dist', 'libs', 'sdk', 'src', 'cli', 'main.js'), ...args], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', HOME: '/tmp', WORKTRACK_URL: gateway.url, WORKTRACK_TOKEN: bot.token },
        timeout: 60_000,
      });
    const args = ['usage', 'report', 'openai', 'gpt-5', '--input', '900', '--cache-read', '600', '--output', '40', '--reasoning', '30'];
    const first = cli([...args, '--external-id', 'resp_cli_1', '--cost', '0.0021']);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^usage recorded: [0-9a-f-]{36}\n$/);
    const again = cli([...args, '--external-id', 'resp_cli_1', '--cost', '0.0021']);
    expect(again.stdout).toMatch(/^usage already recorded: /);
    const bad = cli([...args, '--cache-read', '901']);
    expect(bad.status).toBe(4); // refused: cache over input (D-45)
    const listed = cli(['--json', 'usage', '--provider', 'openai']);
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        external_id: 'resp_cli_1',
        input_tokens: 900,
        cache_read_input_tokens: 600,
        reasoning_output_tokens: 30,
        cost: { amount: '0.0021', currency: 'USD' },
      }),
    ]);
  });
});
