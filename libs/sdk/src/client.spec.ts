import { createWorktrackClient, type WorktrackClientOptions } from './client';
import { WorktrackError } from './errors';
import { paginate } from './paginate';

interface Seen {
  method: string;
  url: string;
  authorization: string | null;
  body: unknown;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const SESSION = {
  session_id: '6f1d9d1e-5a4c-4b8e-9a53-0c1a2b3c4d5e',
  intent_text: 'x',
  state: 'active',
  source: 'timer',
  work_type: 'intentional',
  goal_id: null,
  project_id: null,
  started_at: '2026-01-01T00:00:00.000Z',
  closed_at: null,
  user_tags: [],
  created_at: '2026-01-01T00:00:00.000Z',
};

/** A client over a scripted fetch: each call takes the next answer (a Response, or an Error to throw). */
function scripted(answers: Array<Response | Error>, options: Partial<WorktrackClientOptions> = {}) {
  const seen: Seen[] = [];
  const waits: number[] = [];
  let clock = 0;
  const client = createWorktrackClient({
    baseUrl: 'http://api.test',
    token: 'wt_abcdefgh_secret',
    fetch: async (request) => {
      const text = await request.text();
      seen.push({
        method: request.method,
        url: request.url,
        authorization: request.headers.get('authorization'),
        body: text ? JSON.parse(text) : undefined,
      });
      const next = answers.shift();
      if (!next) throw new Error('no answer scripted');
      if (next instanceof Error) throw next;
      return next;
    },
    hooks: {
      sleep: (ms) => {
        waits.push(ms);
        clock += ms;
        return Promise.resolve();
      },
      now: () => clock,
      random: () => 0.5,
      newId: (() => {
        let n = 0;
        return () => `id-${++n}`;
      })(),
    },
    ...options,
  });
  return { client, seen, waits };
}

describe('the worktrack SDK client', () => {
  it('sends the bearer to the /v1 base whether or not the base URL names it', async () => {
    for (const baseUrl of ['http://api.test', 'http://api.test/v1', 'http://api.test/v1/']) {
      const { client, seen } = scripted([json(200, { data: { member_id: 'm' } })], { baseUrl });
      await client.me();
      expect(seen).toEqual([{ method: 'GET', url: 'http://api.test/v1/me', authorization: 'Bearer wt_abcdefgh_secret', body: undefined }]);
    }
  });

  it('gives each event without external_id a stable one, the same on every retry (D-15), and keeps those given', async () => {
    const { client, seen, waits } = scripted([
      json(503, { error: { code: 'UNAVAILABLE', message: 'down' } }),
      new TypeError('fetch failed'),
      json(202, { data: { accepted: 2, deduplicated: 0, event_ids: ['a', 'b'] } }),
    ]);
    const result = await client.reportEvents([{ event_type: 'deploy' }, { event_type: 'test.run', external_id: 'mine' }]);
    expect(result.accepted).toBe(2);
    expect(seen).toHaveLength(3);
    for (const call of seen) {
      expect(call.body).toEqual({
        events: [
          { event_type: 'deploy', external_id: 'id-1' },
          { event_type: 'test.run', external_id: 'mine' },
        ],
      });
    }
    // Full jitter over 200 ms doubling: half of 200, then half of 400.
    expect(waits).toEqual([100, 200]);
  });

  it('gives a session start an idempotency_key (D-28) and retries it on 503, honouring a longer Retry-After', async () => {
    const { client, seen, waits } = scripted([
      json(503, { error: { code: 'UNAVAILABLE', message: 'down' } }, { 'retry-after': '2' }),
      json(201, { data: SESSION }),
    ]);
    const session = await client.startSession({ intent_text: 'x', source: 'timer' });
    expect(session.session_id).toBe(SESSION.session_id);
    expect(seen.map((s) => s.body)).toEqual([
      { intent_text: 'x', source: 'timer', idempotency_key: 'id-1' },
      { intent_text: 'x', source: 'timer', idempotency_key: 'id-1' },
    ]);
    expect(waits).toEqual([2000]);
  });

  it('never retries a pause on 503 (a pause that went through would answer 409), but does on 429 (rejected requests do no work, D-5)', async () => {
    const unavailable = scripted([json(503, { error: { code: 'UNAVAILABLE', message: 'down' } }), json(200, { data: SESSION })]);
    await expect(unavailable.client.pauseSession(SESSION.session_id)).rejects.toMatchObject({ status: 503, code: 'UNAVAILABLE' });
    expect(unavailable.seen).toHaveLength(1);

    const limited = scripted([
      json(429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '3' }),
      json(200, { data: SESSION }),
    ]);
    await expect(limited.client.pauseSession(SESSION.session_id, { pause_reason: 'lunch' })).resolves.toMatchObject({ state: 'active' });
    expect(limited.seen).toHaveLength(2);
    expect(limited.waits).toEqual([3000]);
  });

  it('does not wait for a Retry-After beyond its cap: the 429 is the answer', async () => {
    const { client, seen, waits } = scripted(
      [json(429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '45' })],
      {
        retry: { maxRetryAfterMs: 10_000 },
      },
    );
    const error = await client.me().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(WorktrackError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', message: 'slow down' });
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('stops after maxAttempts, and within the time budget', async () => {
    const down = () => json(503, { error: { code: 'UNAVAILABLE', message: 'down' } });
    const attempts = scripted([down(), down(), down(), down()], { retry: { maxAttempts: 3 } });
    await expect(attempts.client.me()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(attempts.seen).toHaveLength(3);

    const budget = scripted([down(), down(), down(), down(), down()], { retry: { budgetMs: 350, maxAttempts: 10 } });
    await expect(budget.client.me()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    // Waits of 100 and 200 fit in 350 ms; the next (400) would not.
    expect(budget.waits).toEqual([100, 200]);
    expect(budget.seen).toHaveLength(3);
  });

  it('turns a network failure that outlasts the retries into UNAVAILABLE with status 0', async () => {
    const { client, seen } = scripted([new TypeError('fetch failed'), new TypeError('fetch failed')], { retry: { maxAttempts: 2 } });
    const error = await client.listSessions().catch((err: unknown) => err);
    expect(error).toMatchObject({ name: 'WorktrackError', status: 0, code: 'UNAVAILABLE' });
    expect(seen).toHaveLength(2);
  });

  it('with retry: false sends once', async () => {
    const { client, seen } = scripted([json(503, { error: { code: 'UNAVAILABLE', message: 'down' } })], { retry: false });
    await expect(client.me()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(seen).toHaveLength(1);
  });

  it('throws typed errors with the D-2 code, details and request id', async () => {
    const { client } = scripted([
      json(
        400,
        { error: { code: 'VALIDATION_FAILED', message: 'bad', details: [{ path: 'events[0].event_type', issue: 'must match' }] } },
        { 'x-request-id': 'r-1' },
      ),
    ]);
    const error = (await client.reportEvents({ event_type: 'BAD' }).catch((err: unknown) => err)) as WorktrackError;
    expect(error).toBeInstanceOf(WorktrackError);
    expect({ ...error, message: error.message, text: String(error) }).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'bad',
      details: [{ path: 'events[0].event_type', issue: 'must match' }],
      requestId: 'r-1',
      text: 'VALIDATION_FAILED: bad',
    });
  });

  it('iterates over cursor pages until the cursor is null, passing filters along', async () => {
    const { client, seen } = scripted([
      json(200, { data: [SESSION], meta: { cursor: 'c1' } }),
      json(200, { data: [SESSION], meta: { cursor: 'c2' } }),
      json(200, { data: [], meta: { cursor: null } }),
    ]);
    const pages = [];
    for await (const page of client.sessionPages({ state: 'closed', limit: 1 })) pages.push(page.data.length);
    expect(pages).toEqual([1, 1, 0]);
    expect(seen.map((s) => new URL(s.url).search)).toEqual([
      '?state=closed&limit=1',
      '?state=closed&limit=1&cursor=c1',
      '?state=closed&limit=1&cursor=c2',
    ]);
  });

  it('refuses a cursor that comes back twice instead of looping', async () => {
    const iterate = async () => {
      for await (const page of paginate(() => Promise.resolve({ data: [1], meta: { cursor: 'same' } }))) void page;
    };
    await expect(iterate()).rejects.toThrow(/came back twice/);
  });
});

describe('call(operationId)', () => {
  it('sends any documented operation by its id, with path, query and body, through the same keys and retries', async () => {
    const { client, seen } = scripted([json(503, {}), json(200, { data: SESSION })]);
    const body = await client.call('sessions.close', { path: { session_id: SESSION.session_id }, body: { closing_note: 'done' } });
    expect(body).toEqual({ data: SESSION });
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', `http://api.test/v1/sessions/${SESSION.session_id}/close`, { closing_note: 'done' }],
      ['POST', `http://api.test/v1/sessions/${SESSION.session_id}/close`, { closing_note: 'done' }],
    ]);
    const started = scripted([json(201, { data: SESSION })]);
    await started.client.call('sessions.start', { body: { intent_text: 'x', source: 'timer' } });
    expect(started.seen[0].body).toEqual({ intent_text: 'x', source: 'timer', idempotency_key: 'id-1' });
    const listed = scripted([json(400, { error: { code: 'INVALID_CURSOR', message: 'bad cursor' } })]);
    await expect(listed.client.call('sessions.list', { query: { cursor: 'x', limit: 2 } })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
    expect(new URL(listed.seen[0].url).search).toBe('?cursor=x&limit=2');
  });
});
