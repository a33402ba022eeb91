import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createWorktrackClient, WorktrackError, type FetchLike, type WorktrackClient } from '@worktrack/sdk';
import { memberWithToken, repoRoot, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';

const run = randomUUID().slice(0, 8);

/** Sends to the real gateway, but loses the answer of the first `n` requests it passes on (the server did the work). */
function losingFirstAnswers(n: number): { fetch: FetchLike; sent: () => number } {
  let sent = 0;
  return {
    sent: () => sent,
    fetch: async (request) => {
      const response = await fetch(request);
      sent++;
      if (sent <= n) {
        await response.body?.cancel();
        throw new TypeError('fetch failed: the connection was reset');
      }
      return response;
    },
  };
}

/** The SDK (libs/sdk) against the real stack: gateway, identity, sessions, ingestion, correlation, Kafka and Postgres. */
describe('the typed SDK end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let member: MemberWithToken;
  let wt: WorktrackClient;
  const quickRetry = { baseDelayMs: 10, maxDelayMs: 50 };

  beforeAll(async () => {
    // Generous start-up bounds: the machine may be shared and busy.
    apps.push(...(await Promise.all(['identity', 'ingestion', 'sessions', 'correlation'].map((a) => startAppProcess(a, {}, 120_000)))));
    gateway = await startAppProcess('gateway', {}, 120_000);
    apps.push(gateway);
    member = memberWithToken({ workspace: `sdk-${run}`, email: `sdk-${run}@example.com`, timezone: 'Europe/Berlin' });
    wt = createWorktrackClient({ baseUrl: gateway.url, token: member.token, retry: quickRetry });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
  });

  it('was generated from the very document the gateway serves at /openapi.yaml', () => {
    const check = spawnSync(
      process.execPath,
      [join(repoRoot(), 'dist', 'scripts', 'generate-sdk.js'), '--check', '--from', `${gateway.url}/openapi.yaml`],
      {
        cwd: repoRoot(),
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    // The output is part of the comparison so that a failure shows it.
    expect({ status: check.status, output: `${check.stdout}${check.stderr}` }).toMatchObject({ status: 0 });
    expect(check.stdout).toContain(`up to date with ${gateway.url}/openapi.yaml`);
  });

  it('authenticates with the bearer, and answers a bad one with a typed UNAUTHENTICATED', async () => {
    await expect(wt.me()).resolves.toMatchObject({
      member_id: member.memberId,
      workspace_id: member.workspaceId,
      timezone: 'Europe/Berlin',
    });
    const stranger = createWorktrackClient({ baseUrl: `${gateway.url}/v1`, token: 'wt_aaaaaaaa_notarealsecretnotarealsecretnotarealsecr' });
    const error = await stranger.me().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(WorktrackError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect((error as WorktrackError).requestId).toBeTruthy();
  });

  it('runs a session through its lifecycle, with typed conflicts and a start whose lost answer is retried into the same session (D-28)', async () => {
    const lossy = losingFirstAnswers(1);
    const flaky = createWorktrackClient({ baseUrl: gateway.url, token: member.token, fetch: lossy.fetch, retry: quickRetry });
    const started = await flaky.startSession({ intent_text: `sdk lifecycle ${run}`, source: 'timer', estimated_duration_min: 30 });
    expect(lossy.sent()).toBe(2);
    expect(started).toMatchObject({ state: 'active', source: 'timer', intent_text: `sdk lifecycle ${run}` });
    // The lost first answer created the session; the retry (same generated key) got that one, not a second.
    const live = [...(await wt.listSessions({ state: 'active' })).data, ...(await wt.listSessions({ state: 'paused' })).data];
    expect(live.map((s) => s.session_id)).toEqual([started.session_id]);

    await expect(wt.pauseSession(started.session_id, { pause_reason: 'lunch' })).resolves.toMatchObject({ state: 'paused' });
    const conflict = await wt.pauseSession(started.session_id).catch((err: unknown) => err);
    expect(conflict).toMatchObject({ name: 'WorktrackError', status: 409, code: 'SESSION_STATE_CONFLICT' });
    await expect(wt.resumeSession(started.session_id)).resolves.toMatchObject({ state: 'active' });
    const closed = await wt.closeSession(started.session_id, { closing_note: 'done' });
    expect(closed).toMatchObject({ state: 'closed', closed_at: expect.any(String) as string });
    // Closing again returns it unchanged (D-26).
    await expect(wt.closeSession(started.session_id)).resolves.toEqual(closed);
    await expect(wt.resumeSession(randomUUID())).rejects.toMatchObject({ status: 404, code: 'SESSION_NOT_FOUND' });
  });

  it('stores an event once whatever the retries: the same external_id twice, and a batch whose answer was lost (D-15)', async () => {
    const externalId = `sdk-${run}-deploy`;
    const first = await wt.reportEvents({ event_type: 'deploy', source_type: 'custom', external_id: externalId, payload: { env: 'prod' } });
    const again = await wt.reportEvents({ event_type: 'deploy', source_type: 'custom', external_id: externalId, payload: { env: 'prod' } });
    expect(first).toMatchObject({ accepted: 1, deduplicated: 0 });
    expect(again).toMatchObject({ accepted: 0, deduplicated: 1, event_ids: first.event_ids });

    // No external_id given: the SDK makes one per event, so the retry after a lost answer deduplicates.
    const lossy = losingFirstAnswers(1);
    const flaky = createWorktrackClient({ baseUrl: gateway.url, token: member.token, fetch: lossy.fetch, retry: quickRetry });
    const batch = await flaky.reportEvents([
      { event_type: 'test.run', payload: { n: 1 } },
      { event_type: 'test.run', payload: { n: 2 } },
    ]);
    expect(lossy.sent()).toBe(2);
    expect(batch).toMatchObject({ accepted: 0, deduplicated: 2 });

    const stored = [];
    for await (const page of wt.timelinePages({ event_type: 'test.run', limit: 100 })) stored.push(...page.data);
    expect(stored).toHaveLength(2);
    expect(stored.map((e) => e.event_id).sort()).toEqual([...batch.event_ids].sort());
    expect(stored.every((e) => typeof e.external_id === 'string' && e.external_id.length > 0)).toBe(true);
  });

  it('iterates over more than one page with for await, never skipping or repeating (D-29)', async () => {
    const base = Date.now() - 6 * 3_600_000;
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await wt.startSession({
        intent_text: `sdk page ${i}`,
        source: 'manual',
        started_at: new Date(base + i * 600_000).toISOString(),
        ended_at: new Date(base + i * 600_000 + 300_000).toISOString(),
      });
      created.push(s.session_id);
    }
    const pages: string[][] = [];
    for await (const page of wt.sessionPages({ limit: 2 })) pages.push(page.data.map((s) => s.session_id));
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.slice(0, -1).every((p) => p.length === 2)).toBe(true);
    const seen = pages.flat();
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(created));
  });

  it('waits out a real 429 for its Retry-After and then succeeds, or throws RATE_LIMITED at once when that is beyond its cap (D-5)', async () => {
    // A gateway of its own with a tiny per-member limit, and a member of its own: no other test shares the window.
    const limited = await startAppProcess('gateway', { RATE_LIMIT_PER_MINUTE: '2' }, 120_000);
    apps.push(limited);
    const m = memberWithToken({ workspace: `sdk-rl-${run}`, email: `sdk-rl-${run}@example.com` });
    const impatient = createWorktrackClient({ baseUrl: limited.url, token: m.token, retry: { maxRetryAfterMs: 1_000 } });
    await impatient.me();
    await impatient.me();
    const started = Date.now();
    const refused = await impatient.me().catch((err: unknown) => err);
    expect(refused).toMatchObject({ name: 'WorktrackError', status: 429, code: 'RATE_LIMITED' });
    expect(Date.now() - started).toBeLessThan(5_000); // not waited for: its Retry-After is beyond the 1 s cap

    let sent = 0;
    const patient = createWorktrackClient({
      baseUrl: limited.url,
      token: m.token,
      retry: { maxRetryAfterMs: 70_000, budgetMs: 120_000 },
      fetch: (request) => {
        sent++;
        return fetch(request);
      },
    });
    const waited = Date.now();
    await expect(patient.me()).resolves.toMatchObject({ member_id: m.memberId });
    expect(sent).toBeGreaterThanOrEqual(2); // refused, waited for Retry-After, then answered
    expect(Date.now() - waited).toBeGreaterThan(1_000);
  }, 240_000);

  it('throws typed validation errors naming the bad fields, and INVALID_CURSOR for a forged cursor', async () => {
    const invalid = (await wt
      .reportEvents([{ event_type: 'ok' }, { event_type: 'Not Valid' }])
      .catch((err: unknown) => err)) as WorktrackError;
    expect(invalid).toBeInstanceOf(WorktrackError);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(invalid.details.map((d) => d.path)).toContain('events[1].event_type');
    await expect(wt.listSessions({ cursor: 'forged' })).rejects.toMatchObject({ status: 400, code: 'INVALID_CURSOR' });
  });

  // Last: it stops and restarts the sessions service.
  it('retries a session start through real 503s while the sessions service is down, into one session (D-28)', async () => {
    const m = memberWithToken({ workspace: `sdk-503-${run}`, email: `sdk-503-${run}@example.com` });
    // A gateway that gives up on a silent service after 2 s (503 UNAVAILABLE), so the retries come quickly.
    const edge = await startAppProcess('gateway', { REQUEST_TIMEOUT_MS: '2000' }, 120_000);
    apps.push(edge);
    const statuses: number[] = [];
    let refused!: () => void;
    const firstRefusal = new Promise<void>((resolve) => (refused = resolve));
    const client = createWorktrackClient({
      baseUrl: edge.url,
      token: m.token,
      retry: { baseDelayMs: 500, maxDelayMs: 2_000, maxAttempts: 200, budgetMs: 240_000 },
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        if (response.status === 503) refused();
        return response;
      },
    });

    const sessions = apps.find((a) => a.app === 'sessions')!;
    await sessions.stop();
    apps.splice(apps.indexOf(sessions), 1);
    const starting = client.startSession({ intent_text: `sdk 503 ${run}`, source: 'timer' }).then(
      (session) => ({ session }),
      (error: unknown) => ({ error }),
    );
    // The API answers 503 while the service is away; the SDK keeps retrying with the same generated key.
    await Promise.race([firstRefusal, starting]);
    apps.push(await startAppProcess('sessions', {}, 120_000));
    const outcome = await starting;
    if ('error' in outcome) throw outcome.error;

    expect(statuses[0]).toBe(503);
    expect(statuses.at(-1)).toBe(201);
    expect(statuses.slice(0, -1).every((status) => status === 503)).toBe(true);
    expect(outcome.session).toMatchObject({ state: 'active', intent_text: `sdk 503 ${run}` });
    // The refused attempts and the one that went through carried one key: one session, not one per attempt.
    const reader = createWorktrackClient({ baseUrl: gateway.url, token: m.token });
    const mine = (await reader.listSessions({ limit: 100 })).data;
    expect(mine.map((s) => s.session_id)).toEqual([outcome.session.session_id]);
  }, 300_000);
});
