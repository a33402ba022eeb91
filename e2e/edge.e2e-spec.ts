import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { memberWithToken, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

const run = randomUUID().slice(0, 8);

interface Raw {
  status: number;
  body: ErrorBody;
  requestId: string | null;
}

/** A request with the body sent as exactly this text (JSON.stringify cannot write a lone surrogate's escape or a deep nest). */
async function raw(
  base: string,
  method: string,
  path: string,
  token: string,
  text?: string,
  headers: Record<string, string> = {},
): Promise<Raw> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(text === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: text,
  });
  const body = await res.text();
  return { status: res.status, body: (body ? JSON.parse(body) : null) as ErrorBody, requestId: res.headers.get('x-request-id') };
}

/** Bytes on a socket, for what fetch refuses to send (unknown methods, huge headers); the answer's status, headers and body. */
function socketRequest(port: number, request: string): Promise<{ status: number; headers: Record<string, string>; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = rest.join('\r\n\r\n');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body ? (JSON.parse(body) as unknown) : null });
    });
  });
}

const deep = (levels: number, leaf = '1'): string => '['.repeat(levels) + leaf + ']'.repeat(levels);

/** Hostile and odd input through the real gateway and services; never a 5xx, never a silent change. */
describe('edge input hardening end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let member: MemberWithToken;
  let port: number;

  beforeAll(async () => {
    // Generous: six processes start at once on a small shared machine.
    apps.push(
      ...(await Promise.all(['identity', 'ingestion', 'sessions', 'plate', 'connectors'].map((a) => startAppProcess(a, {}, 150_000)))),
    );
    gateway = await startAppProcess('gateway', { REQUEST_TIMEOUT_MS: '8000' }, 150_000);
    apps.push(gateway);
    port = Number(new URL(gateway.url).port);
    member = memberWithToken({ workspace: `edge-${run}`, email: `edge-${run}@example.com` });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
  });

  const timeline = async (): Promise<Array<{ external_id: string | null; event_type: string }>> =>
    (
      await call<{ data: Array<{ external_id: string | null; event_type: string }> }>(gateway.url, 'GET', '/v1/activity/events?limit=100', {
        token: member.token,
      })
    ).body.data;

  const expectRefused = (res: Raw, status: number, code: string): void => {
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
    expect(typeof res.body.error.message).toBe('string');
    expect(res.requestId).toEqual(expect.any(String));
  };

  describe('NUL and lone surrogates: 400 with the field path, never merged', () => {
    it('refuses an external_id that differs from another only by a NUL, and stores neither', async () => {
      const before = await timeline();
      const res = await raw(
        gateway.url,
        'POST',
        '/v1/activity/events',
        member.token,
        JSON.stringify({
          events: [
            { event_type: 'nul.check', external_id: `x-${run}` },
            { event_type: 'nul.check', external_id: `x-${run}\u0000` },
          ],
        }),
      );
      expectRefused(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details).toEqual([{ path: 'events[1].external_id', issue: expect.stringContaining('NUL') as string }]);
      expect(await timeline()).toEqual(before);
    });

    it('refuses a lone surrogate (as JSON escape) in a value and a NUL in a payload key', async () => {
      const res = await raw(
        gateway.url,
        'POST',
        '/v1/activity/events',
        member.token,
        `{"events":[{"event_type":"a","external_id":"id-\\ud800"},{"event_type":"b","payload":{"k\\u0000":1}}]}`,
      );
      expectRefused(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details?.map((d) => d.path)).toEqual(['events[0].external_id', 'events[1].payload.k\\u0000']);
    });

    it('two client ids that differ only where a lone surrogate would be replaced are never deduplicated into one', async () => {
      const res = await raw(
        gateway.url,
        'POST',
        '/v1/activity/events',
        member.token,
        `{"events":[{"event_type":"s","external_id":"dup-${run}-\\ufffd"},{"event_type":"s","external_id":"dup-${run}-\\udc00"}]}`,
      );
      expectRefused(res, 400, 'VALIDATION_FAILED');
      const ok = await call<{ data: { accepted: number; deduplicated: number } }>(gateway.url, 'POST', '/v1/activity/events', {
        token: member.token,
        body: { events: [{ event_type: 's', external_id: `dup-${run}-\ufffd` }] },
      });
      expect(ok.status).toBe(202);
      expect(ok.body.data).toMatchObject({ accepted: 1, deduplicated: 0 });
    });

    it('refuses NUL in other routes’ strings and in query strings', async () => {
      expectRefused(
        await raw(gateway.url, 'POST', '/v1/sessions', member.token, JSON.stringify({ intent_text: 'a\u0000', source: 'timer' })),
        400,
        'VALIDATION_FAILED',
      );
      const q = await raw(gateway.url, 'GET', '/v1/activity/events?cursor=%00', member.token);
      expectRefused(q, 400, 'VALIDATION_FAILED');
      expect(q.body.error.details?.[0]?.path).toBe('cursor');
      // Percent-encoded bytes that are not UTF-8 (here a surrogate's CESU-8 form) never become a lone surrogate.
      expectRefused(await raw(gateway.url, 'GET', '/v1/sessions?state=%ED%A0%80', member.token), 400, 'VALIDATION_FAILED');
    });
  });

  describe('nesting depth: 400 at parse time', () => {
    it('refuses ten thousand levels in a payload and in a plain field', async () => {
      const payload = await raw(
        gateway.url,
        'POST',
        '/v1/activity/events',
        member.token,
        `{"events":[{"event_type":"deep","payload":{"a":${deep(10_000)}}}]}`,
      );
      expectRefused(payload, 400, 'VALIDATION_FAILED');
      expect(payload.body.error.details?.[0]?.issue).toMatch(/deeper than 64 levels/);
      expectRefused(
        await raw(gateway.url, 'POST', '/v1/sessions', member.token, `{"intent_text":${deep(5_000, '"x"')},"source":"timer"}`),
        400,
        'VALIDATION_FAILED',
      );
    });
  });

  describe('impossible and out-of-range dates: 400 everywhere', () => {
    it.each([
      '2026-02-30T10:00:00Z',
      '2026-05-01T24:00:00Z',
      '0000-01-01T00:00:00Z',
      '2026-05-01T10:00:00+15:00',
      '9999-12-31T23:59:59-14:00',
    ])('occurred_at %s', async (occurred_at) => {
      const res = await raw(
        gateway.url,
        'POST',
        '/v1/activity/events',
        member.token,
        JSON.stringify({ events: [{ event_type: 'd', occurred_at }] }),
      );
      expectRefused(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details?.[0]?.path).toBe('events[0].occurred_at');
    });

    it.each([
      ['/v1/activity/events?from=2026-02-30T00:00:00Z', 'from'],
      ['/v1/activity/events?to=9999-12-31T23:59:59-14:00', 'to'],
      ['/v1/sessions?from=2026-02-30', 'from'],
      ['/v1/sessions?to=9999-12-31', 'to'],
      ['/v1/plate?date=0000-01-01', 'date'],
      ['/v1/plate?date=9999-12-31', 'date'],
    ])('query %s', async (path, field) => {
      const res = await raw(gateway.url, 'GET', path, member.token);
      expectRefused(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details?.[0]?.path).toBe(field);
    });

    it('manual session times and close times', async () => {
      expectRefused(
        await raw(
          gateway.url,
          'POST',
          '/v1/sessions',
          member.token,
          JSON.stringify({ intent_text: 'x', source: 'manual', started_at: '2026-02-29T10:00:00Z', ended_at: '2026-03-01T11:00:00Z' }),
        ),
        400,
        'VALIDATION_FAILED',
      );
      expectRefused(
        await raw(
          gateway.url,
          'POST',
          `/v1/plate/assign`,
          member.token,
          JSON.stringify({ assignee_id: member.memberId, title: 't', plate_date: '9999-12-31' }),
        ),
        400,
        'VALIDATION_FAILED',
      );
    });
  });

  describe('lengths count code points, as the columns do', () => {
    it('an external_id of 256 code points with variation selectors fits; 257 is refused before the database', async () => {
      const fits = `${'a\uFE0F'.repeat(128)}`;
      expect([...fits]).toHaveLength(256);
      const ok = await call(gateway.url, 'POST', '/v1/activity/events', {
        token: member.token,
        body: { events: [{ event_type: 'len', external_id: fits }] },
      });
      expect(ok.status).toBe(202);
      const over = `${fits}b`;
      const res = await raw(
        gateway.url,
        'POST',
        '/v1/activity/events',
        member.token,
        JSON.stringify({ events: [{ event_type: 'len', external_id: over }] }),
      );
      expectRefused(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details).toEqual([{ path: 'events[0].external_id', issue: 'external_id must be at most 256 characters' }]);
      // Before: class-validator counted 129 here (it leaves U+FE0F out) and the varchar(256) column failed with a 500.
      const sneaky = 'x\uFE0F'.repeat(200);
      expectRefused(
        await raw(
          gateway.url,
          'POST',
          '/v1/activity/events',
          member.token,
          JSON.stringify({ events: [{ event_type: 'len', external_id: sneaky }] }),
        ),
        400,
        'VALIDATION_FAILED',
      );
    });
  });

  describe('null where the document says nullable', () => {
    // Null is absent (api-spec.md: optional fields are "nullable, not required"); a github connector without a secret is a 400.
    it.each([
      ['every optional field null', { feed_url: null, poll_interval_seconds: null }],
      ['only the github fields null (a fuzz counterexample that answered 500)', {}],
    ])('a github connector with %s is a 400 naming the missing secret', async (_name, extra) => {
      const res = await call<ErrorBody>(gateway.url, 'POST', '/v1/connectors', {
        token: member.token,
        body: { kind: 'github', name: `n-${run}`, secret: null, account: null, member_id: null, ...extra },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details).toEqual([{ path: 'secret', issue: 'the webhook secret is required' }]);
    });

    it('a github connector with a secret and the other optional fields null is created for the caller', async () => {
      const res = await call<{ data: { member_id: string; account: string | null } }>(gateway.url, 'POST', '/v1/connectors', {
        token: member.token,
        body: { kind: 'github', name: `n-${run}`, secret: 'a-long-enough-secret', account: null, member_id: null, feed_url: null },
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ member_id: member.memberId, account: null });
    });

    it('events with external_id null are each stored, never deduplicated into one', async () => {
      const res = await call<{ data: { accepted: number; deduplicated: number } }>(gateway.url, 'POST', '/v1/activity/events', {
        token: member.token,
        body: { events: [1, 2, 3].map((n) => ({ event_type: 'test.null_id', external_id: null, payload: { n } })) },
      });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ accepted: 3, deduplicated: 0 });
    });

    it('a session with every optional field null starts', async () => {
      const res = await call(gateway.url, 'POST', '/v1/sessions', {
        token: member.token,
        body: {
          intent_text: 'nulls',
          source: 'timer',
          goal_id: null,
          task_id: null,
          project_id: null,
          estimated_duration_min: null,
          started_at: null,
          ended_at: null,
          idempotency_key: null,
        },
      });
      expect(res.status).toBe(201);
    });
  });

  describe('prototype poisoning: refused with a code that says so', () => {
    it.each([
      ['a body key', '/v1/activity/events', '{"events":[{"event_type":"p","payload":{"__proto__":{"admin":true}}}]}'],
      ['constructor.prototype', '/v1/activity/events', '{"events":[{"event_type":"p","payload":{"constructor":{"prototype":{"x":1}}}}]}'],
    ])('%s', async (_what, path, text) => {
      expectRefused(await raw(gateway.url, 'POST', path, member.token, text), 400, 'PROTOTYPE_POISONING');
    });

    it('a query key', async () => {
      expectRefused(await raw(gateway.url, 'GET', '/v1/activity/events?__proto__=x', member.token), 400, 'PROTOTYPE_POISONING');
    });
  });

  describe('HTTP-layer errors in the D-1 envelope with an x-request-id', () => {
    it('malformed percent-encoding in the path', async () => {
      expectRefused(await raw(gateway.url, 'GET', '/v1/sessions/%E0%A4%A', member.token), 400, 'VALIDATION_FAILED');
    });

    it('an over-long path parameter: no route has such a parameter', async () => {
      expectRefused(await raw(gateway.url, 'GET', `/v1/sessions/${'a'.repeat(5_000)}`, member.token), 404, 'NOT_FOUND');
    });

    it('Content-Encoding the edge cannot decode is 415', async () => {
      const res = await fetch(`${gateway.url}/v1/activity/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ events: [{ event_type: 'gz' }] })),
      });
      expect(res.status).toBe(415);
      expect(((await res.json()) as ErrorBody).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
    });

    it('over-large headers are 431 HEADERS_TOO_LARGE (D-37, RFC 6585), a 200 KB Authorization header included', async () => {
      const big = await socketRequest(port, `GET /v1/sessions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${'a'.repeat(200_000)}\r\n\r\n`);
      expect(big.status).toBe(431);
      expect(big.body).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) as string } });
      const res = await socketRequest(port, `GET /v1/sessions HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(res.status).toBe(431);
      expect(res.body).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) as string } });
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
    });

    it.each(['FOO', 'PROPFIND', 'TRACE'])('the method %s', async (method) => {
      const res = await socketRequest(port, `${method} /v1/sessions HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) as string } });
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
    });

    it('a request line that is not HTTP', async () => {
      const res = await socketRequest(port, `GET /v1 sessions HTTP/1.1\r\nhost: x\r\n\r\n`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'VALIDATION_FAILED', message: expect.any(String) as string } });
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
    });
  });

  it('no line of any service logged an internal error', () => {
    for (const p of apps)
      expect({ app: p.app, internal: p.output().includes('"msg":"internal error"') }).toEqual({ app: p.app, internal: false });
  });
});
