import { createHmac, randomUUID } from 'node:crypto';
import { memberWithToken, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, postOversize, type ErrorBody } from './http';

interface Page<T> {
  data: T[];
  meta: { cursor: string | null };
}
interface StoredEvent {
  event_id: string;
  payload: Record<string, unknown>;
}
interface Accepted {
  data: { accepted: number; deduplicated: number; event_ids: string[] };
}

const run = randomUUID().slice(0, 8);
const TIMEOUT_MS = 3_000;

/** A payload of exactly `bytes` bytes as UTF-8 JSON (D-18 counts it that way). */
function payloadOf(bytes: number, tag: string): Record<string, string> {
  const base = JSON.stringify({ tag, fill: '' }).length;
  return { tag, fill: 'x'.repeat(bytes - base) };
}

const event = (i: number, bytes: number): Record<string, unknown> => ({
  event_type: 'tool.call',
  source_type: 'agent',
  external_id: `big-${run}-${i}`,
  occurred_at: new Date(Date.now() - (1_000 + i) * 1_000).toISOString(),
  payload: payloadOf(bytes, `e${i}`),
});

async function allPages<T>(gateway: string, path: string, token: string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: { status: number; body: Page<T> } = await call<Page<T>>(
      gateway,
      'GET',
      cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path,
      { token },
    );
    expect(res.status).toBe(200);
    items.push(...res.body.data);
    cursor = res.body.meta.cursor;
    pages++;
  } while (cursor && pages < 200);
  return { items, pages };
}

/**
 * One caller cannot take a service down for every tenant (bounded
 * replies, valid large requests fit), and no id or cursor crosses a caller or
 * a list. Every app as a process, through the gateway.
 */
describe('tenancy and bounds end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let ingestion: AppProcess;
  let a: MemberWithToken;
  let b: MemberWithToken;

  beforeAll(async () => {
    apps.push(...(await Promise.all(['identity', 'ingestion', 'sessions', 'plate', 'connectors'].map((s) => startAppProcess(s)))));
    ingestion = apps[1];
    gateway = await startAppProcess('gateway', { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });
    apps.push(gateway);
    a = memberWithToken({ workspace: `tb-a-${run}`, email: `a-${run}@example.com` });
    b = memberWithToken({ workspace: `tb-b-${run}`, email: `b-${run}@example.com` });
  });

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
  });

  it('accepts the largest valid batch (100 events × 32 KB payloads), and a timeline of large events pages by bytes without ever failing a reader', async () => {
    // The largest valid batch: 100 events of exactly 32,768 payload bytes each (D-17, D-18).
    const big = await call<Accepted>(gateway.url, 'POST', '/v1/activity/events', {
      token: a.token,
      body: { events: Array.from({ length: 100 }, (_, i) => event(i, 32_768)) },
    });
    expect(big.status).toBe(202);
    expect(big.body.data.accepted).toBe(100);

    // The scenario of the issue: reading them all with the largest limit.
    const first = await call<Page<StoredEvent>>(gateway.url, 'GET', '/v1/activity/events?limit=100', { token: a.token });
    expect(first.status).toBe(200);
    expect(first.body.data.length).toBeGreaterThan(0);
    expect(first.body.data.length).toBeLessThan(100); // cut by bytes, not by rows
    expect(first.body.meta.cursor).toEqual(expect.any(String));
    const { items, pages } = await allPages<StoredEvent>(gateway.url, '/v1/activity/events?limit=100', a.token);
    expect(pages).toBeGreaterThan(1);
    expect(new Set(items.map((e) => e.event_id)).size).toBe(100); // nothing skipped, nothing repeated
    expect(items.map((e) => e.event_id).sort()).toEqual([...big.body.data.event_ids].sort());

    // The service is still up for everyone: ready, and another tenant ingests and reads within a second.
    expect((await fetch(`${ingestion.url}/readyz`)).status).toBe(200);
    const started = Date.now();
    const other = await call<Accepted>(gateway.url, 'POST', '/v1/activity/events', {
      token: b.token,
      body: { events: [{ event_type: 'deploy', external_id: `b-${run}` }] },
    });
    const read = await call<Page<StoredEvent>>(gateway.url, 'GET', '/v1/activity/events', { token: b.token });
    expect(other.status).toBe(202);
    expect(read.status).toBe(200);
    expect(read.body.data.map((e) => e.event_id)).toEqual(other.body.data.event_ids);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('refuses a request body over the limit with 413 and keeps serving', async () => {
    const body = Buffer.from(JSON.stringify({ events: [{ event_type: 'x', payload: { fill: 'y'.repeat(7 * 1_048_576) } }] }));
    const res = await postOversize(gateway.url, '/v1/activity/events', body, {
      'content-type': 'application/json',
      authorization: `Bearer ${a.token}`,
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await call(gateway.url, 'GET', '/v1/activity/events?limit=1', { token: a.token })).status).toBe(200);
  });

  it('pages the token list, and a cursor works only for its own caller and its own list', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await call(gateway.url, 'POST', '/v1/tokens', { token: a.token, body: { name: `t-${i}`, scope: 'report_only' } });
      expect(res.status).toBe(201);
    }
    const first = await call<Page<{ token_id: string }>>(gateway.url, 'GET', '/v1/tokens?limit=2', { token: a.token });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    const cursor = first.body.meta.cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const { items } = await allPages<{ token_id: string }>(gateway.url, '/v1/tokens?limit=2', a.token);
    expect(items).toHaveLength(6); // the bootstrap token and five more
    expect(new Set(items.map((t) => t.token_id)).size).toBe(6);

    // Another caller (another workspace) with A's cursor, and A's cursor on other lists: INVALID_CURSOR.
    const q = `cursor=${encodeURIComponent(cursor)}`;
    for (const [who, path] of [
      [b, `/v1/tokens?${q}`],
      [a, `/v1/activity/events?${q}`],
      [a, `/v1/sessions?${q}`],
      [a, `/v1/connectors?${q}`],
    ] as const) {
      const res = await call<ErrorBody>(gateway.url, 'GET', path, { token: who.token });
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 400, code: 'INVALID_CURSOR' });
    }
    const events = await call<Page<StoredEvent>>(gateway.url, 'GET', '/v1/activity/events?limit=1', { token: a.token });
    const eventsCursor = encodeURIComponent(events.body.meta.cursor as string);
    const foreign = await call<ErrorBody>(gateway.url, 'GET', `/v1/activity/events?limit=1&cursor=${eventsCursor}`, { token: b.token });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('INVALID_CURSOR');
  });

  it('pages the connector list', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await call(gateway.url, 'POST', '/v1/connectors', {
        token: a.token,
        body: { kind: 'github', name: `acme/repo-${i}`, secret: `s-${randomUUID()}` },
      });
      expect(res.status).toBe(201);
    }
    const { items, pages } = await allPages<{ connector_id: string }>(gateway.url, '/v1/connectors?limit=2', a.token);
    expect(pages).toBe(2);
    expect(new Set(items.map((c) => c.connector_id)).size).toBe(3);
    const mine = await call<Page<unknown>>(gateway.url, 'GET', '/v1/connectors', { token: b.token });
    expect(mine.body.data).toEqual([]);
  });

  it('treats every id of another workspace like a missing one, and changes nothing of it (D-7)', async () => {
    // A's session, token, connector and plate item.
    const session = await call<{ data: { session_id: string } }>(gateway.url, 'POST', '/v1/sessions', {
      token: a.token,
      body: { source: 'timer', intent_text: 'mine' },
    });
    expect(session.status).toBe(201);
    const sessionId = session.body.data.session_id;
    const token = await call<{ data: { token_id: string; token: string } }>(gateway.url, 'POST', '/v1/tokens', {
      token: a.token,
      body: { name: 'kept', scope: 'full' },
    });
    const connector = await call<{ data: { connector_id: string } }>(gateway.url, 'POST', '/v1/connectors', {
      token: a.token,
      body: { kind: 'slack', name: 'acme', secret: `s-${randomUUID()}` },
    });
    let item: { status: number; body: { data: { plate_item_id: string } } } = { status: 0, body: { data: { plate_item_id: '' } } };
    const deadline = Date.now() + 20_000; // the plate learns members from identity's events
    while (item.status !== 201 && Date.now() < deadline) {
      item = await call(gateway.url, 'POST', '/v1/plate/assign', { token: a.token, body: { assignee_id: a.memberId, title: 'mine' } });
      if (item.status !== 201) await new Promise((r) => setTimeout(r, 200));
    }
    expect(item.status).toBe(201);

    const attempts: Array<[string, string, unknown, number, string]> = [
      ['POST', `/v1/sessions/${sessionId}/pause`, {}, 404, 'SESSION_NOT_FOUND'],
      ['POST', `/v1/sessions/${sessionId}/resume`, {}, 404, 'SESSION_NOT_FOUND'],
      ['POST', `/v1/sessions/${sessionId}/close`, {}, 404, 'SESSION_NOT_FOUND'],
      ['DELETE', `/v1/tokens/${token.body.data.token_id}`, undefined, 404, 'NOT_FOUND'],
      ['DELETE', `/v1/connectors/${connector.body.data.connector_id}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/v1/connectors/${connector.body.data.connector_id}/deliveries`, undefined, 404, 'NOT_FOUND'],
      ['PATCH', `/v1/plate/items/${item.body.data.plate_item_id}`, { done: true }, 404, 'NOT_FOUND'],
      ['POST', '/v1/plate/assign', { assignee_id: a.memberId, title: 'theirs' }, 400, 'ASSIGNEE_NOT_FOUND'],
      ['PATCH', `/v1/members/${a.memberId}`, { plate_capacity: 1 }, 404, 'NOT_FOUND'],
      ['POST', `/v1/members/${a.memberId}/deactivate`, {}, 404, 'NOT_FOUND'],
    ];
    for (const [method, path, body, status, code] of attempts) {
      const res = await call<ErrorBody>(gateway.url, method, path, { token: b.token, body });
      expect({ method, path, status: res.status, code: res.body.error?.code }).toEqual({ method, path, status, code });
    }
    // Nothing of A's changed.
    const sessions = await call<Page<{ session_id: string; state: string }>>(gateway.url, 'GET', '/v1/sessions', { token: a.token });
    expect(sessions.body.data.find((s) => s.session_id === sessionId)?.state).toBe('active');
    const me = await call<{ data: { plate_capacity: number } }>(gateway.url, 'GET', '/v1/me', { token: token.body.data.token });
    expect(me.status).toBe(200); // still active
    expect(me.body.data.plate_capacity).not.toBe(1);
    const connectors = await allPages<{ connector_id: string }>(gateway.url, '/v1/connectors', a.token);
    expect(connectors.items.map((c) => c.connector_id)).toContain(connector.body.data.connector_id);
    const plate = await call<{ data: { items: Array<{ plate_item_id: string; done: boolean }> } }>(gateway.url, 'GET', '/v1/plate', {
      token: a.token,
    });
    expect(plate.body.data.items.find((i) => i.plate_item_id === item.body.data.plate_item_id)?.done).toBe(false);
  });

  it('pages a plate day, whatever number of done items it keeps', async () => {
    const today = await call<{ data: { date: string } }>(gateway.url, 'GET', '/v1/plate', { token: a.token });
    for (let i = 0; i < 3; i++) {
      const item = await call<{ data: { plate_item_id: string } }>(gateway.url, 'POST', '/v1/plate/assign', {
        token: a.token,
        body: { assignee_id: a.memberId, title: `page-${i}`, plate_date: today.body.data.date },
      });
      expect(item.status).toBe(201);
      // Done items free their slot but stay on the day.
      expect(
        (await call(gateway.url, 'PATCH', `/v1/plate/items/${item.body.data.plate_item_id}`, { token: a.token, body: { done: true } }))
          .status,
      ).toBe(200);
    }
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const path: string = `/v1/plate?date=${today.body.data.date}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await call<{ data: { items: Array<{ plate_item_id: string }> }; meta: { cursor: string | null } }>(
        gateway.url,
        'GET',
        path,
        {
          token: a.token,
        },
      );
      expect(res.status).toBe(200);
      expect(res.body.data.items.length).toBeLessThanOrEqual(2);
      ids.push(...res.body.data.items.map((i) => i.plate_item_id));
      if (pages === 0) {
        const foreign = await call<ErrorBody>(
          gateway.url,
          'GET',
          `/v1/plate?date=${today.body.data.date}&cursor=${encodeURIComponent(res.body.meta.cursor as string)}`,
          {
            token: b.token,
          },
        );
        expect(foreign.status).toBe(400);
        expect(foreign.body.error.code).toBe('INVALID_CURSOR');
      }
      cursor = res.body.meta.cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(ids.length).toBeGreaterThanOrEqual(4); // the item of the cross-tenant test and these three
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBeGreaterThanOrEqual(2);
  });

  it('refuses every list cursor for another caller and on every other list (400 INVALID_CURSOR, D-29)', async () => {
    // A cursor of A's on each list that takes one (earlier tests left A more than one page of each).
    const session = await call<{ data: { session_id: string } }>(gateway.url, 'POST', '/v1/sessions', {
      token: a.token,
      body: { source: 'timer', intent_text: 'second' },
    });
    expect(session.status).toBe(201);
    expect(
      (await call(gateway.url, 'POST', `/v1/sessions/${session.body.data.session_id}/close`, { token: a.token, body: {} })).status,
    ).toBe(200);
    // Two connectors with a known secret; two signed deliveries on the first give its log a second page.
    const secret = `s-${randomUUID()}`;
    const connector = async (who: MemberWithToken, name: string): Promise<string> => {
      const res = await call<{ data: { connector_id: string } }>(gateway.url, 'POST', '/v1/connectors', {
        token: who.token,
        body: { kind: 'github', name, secret },
      });
      expect(res.status).toBe(201);
      return res.body.data.connector_id;
    };
    const [logged, other, foreign] = [await connector(a, 'acme/logged'), await connector(a, 'acme/other'), await connector(b, 'acme/b')];
    for (let i = 0; i < 2; i++) {
      const raw = JSON.stringify({ zen: `ping ${i}`, hook_id: i + 1 });
      const res = await fetch(`${gateway.url}/hooks/github/${logged}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'ping',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
        },
        body: raw,
      });
      expect(res.status).toBeLessThan(300);
    }
    const deliveries = (id: string): string => `/v1/connectors/${id}/deliveries`;
    const lists: Record<string, string> = {
      events: '/v1/activity/events',
      sessions: '/v1/sessions',
      tokens: '/v1/tokens',
      connectors: '/v1/connectors',
      deliveries: deliveries(logged),
      plate: '/v1/plate',
    };
    const cursors: Record<string, string> = {};
    for (const [list, path] of Object.entries(lists)) {
      const deadline = Date.now() + 10_000; // the delivery log is written once each delivery is verified
      for (;;) {
        const res = await call<{ meta: { cursor: string | null } }>(gateway.url, 'GET', `${path}?limit=1`, { token: a.token });
        expect({ list, status: res.status }).toEqual({ list, status: 200 });
        if (res.body.meta.cursor) {
          cursors[list] = res.body.meta.cursor;
          break;
        }
        if (Date.now() > deadline) throw new Error(`no second page on ${list}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    // Each cursor still works for its own caller on its own list (the refusals below are not about the cursor itself).
    for (const [list, cursor] of Object.entries(cursors)) {
      const own = await call(gateway.url, 'GET', `${lists[list]}?limit=1&cursor=${encodeURIComponent(cursor)}`, { token: a.token });
      expect({ list, status: own.status }).toEqual({ list, status: 200 });
    }
    const refusals: Array<[string, MemberWithToken, string]> = [];
    for (const [list, cursor] of Object.entries(cursors)) {
      // Another caller (another workspace) on the same list; for a delivery log, the caller's own connector.
      refusals.push([list, b, list === 'deliveries' ? deliveries(foreign) : lists[list]]);
      // The same caller on every other list, and on another connector's log.
      for (const [to, path] of Object.entries(lists)) if (to !== list) refusals.push([list, a, path]);
      if (list === 'deliveries') refusals.push([list, a, deliveries(other)]);
      for (const [, who, path] of refusals.splice(0)) {
        const res = await call<ErrorBody>(gateway.url, 'GET', `${path}?limit=1&cursor=${encodeURIComponent(cursor)}`, { token: who.token });
        const caller = who === a ? 'owner' : 'other workspace';
        expect({ list, caller, path, status: res.status, code: res.body.error?.code }).toEqual({
          list,
          caller,
          path,
          status: 400,
          code: 'INVALID_CURSOR',
        });
      }
    }
  });
});
