import { act, configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { fail, json } from './server';
import { renderWithQuery, signedIn, withApi } from './mount';

configure({ asyncUtilTimeout: 8000 });

const ME = {
  member_id: '11111111-1111-4111-8111-111111111111',
  workspace_id: '22222222-2222-4222-8222-222222222222',
  kind: 'human',
  role: 'member',
  display_name: 'Ada',
  email: 'ada@example.com',
  timezone: 'Europe/Berlin',
  working_hours: { mon: [{ start: '09:00', end: '17:00' }], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
  plate_capacity: 6,
};
const started = {
  session_id: '33333333-3333-4333-8333-333333333333',
  intent_text: 'Fix the flaky test',
  state: 'active',
  source: 'timer',
  work_type: 'intentional',
  goal_id: null,
  project_id: null,
  started_at: new Date().toISOString(),
  closed_at: null,
  user_tags: [],
  created_at: new Date().toISOString(),
  tracked_seconds: 0,
  paused_seconds: 0,
};

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => true });
});

describe('failures are said, with a way to try again', () => {
  it('offers "Try again" after a 503 on Start, and the retry reuses the idempotency key (D-28): never a second session', async () => {
    const keys: string[] = [];
    let live = false;
    const api = await withApi({
      'GET /v1/me': () => json({ data: ME }),
      'GET /v1/sessions': ({ query }) => json({ data: live && query.get('state') !== 'paused' ? [started] : [], meta: { cursor: null } }),
      'GET /v1/activity/events': () => json({ data: [], meta: { cursor: null } }),
      'POST /v1/sessions': ({ body }) => {
        keys.push((body as { idempotency_key: string }).idempotency_key);
        if (keys.length === 1) return fail(503, 'UNAVAILABLE', 'sessions did not answer');
        live = true;
        return json({ data: started }, 201);
      },
    });
    close = api.close;
    signedIn(api.auth);
    const { Today } = await import('../src/features/today/Today');
    renderWithQuery(<Today />);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('What are you working on?'), 'Fix the flaky test');
    await user.click(screen.getByRole('button', { name: 'Start' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The service cannot be reached right now.');
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await screen.findByRole('timer');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('says when the browser is offline, with "Try again", and clears it when the connection is back', async () => {
    const api = await withApi({
      'GET /v1/me': () => json({ data: ME }),
      'GET /v1/sessions': () => json({ data: [], meta: { cursor: null } }),
      'GET /v1/activity/events': () => json({ data: [], meta: { cursor: null } }),
    });
    close = api.close;
    signedIn(api.auth);
    history.replaceState(null, '', '/today');
    const { App } = await import('../src/app/App');
    renderWithQuery(<App />);
    await screen.findByRole('heading', { name: 'Today', level: 1 });
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => false });
    act(() => void window.dispatchEvent(new Event('offline')));
    const notice = await screen.findByText(/You are offline\./);
    const before = api.requests.length;
    await userEvent.setup().click(within(notice.parentElement!).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(api.requests.length).toBeGreaterThan(before));
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => true });
    act(() => void window.dispatchEvent(new Event('online')));
    await waitFor(() => expect(screen.queryByText(/You are offline\./)).toBeNull());
  });
});

describe('back-dated stop and manual blocks, in the member’s time zone', () => {
  it('stops a session at an earlier time entered in the member’s zone (D-26)', async () => {
    let current: Record<string, unknown> = { ...started, started_at: '2026-11-27T07:00:00.000Z' };
    const api = await withApi({
      'GET /v1/me': () => json({ data: ME }),
      'GET /v1/sessions': ({ query }) =>
        json({ data: current.state === 'closed' || query.get('state') === 'paused' ? [] : [current], meta: { cursor: null } }),
      'GET /v1/activity/events': () => json({ data: [], meta: { cursor: null } }),
      [`POST /v1/sessions/${started.session_id}/close`]: ({ body }) => {
        current = { ...current, state: 'closed', closed_at: (body as { closed_at: string }).closed_at };
        return json({ data: current });
      },
    });
    close = api.close;
    signedIn(api.auth);
    const { Today } = await import('../src/features/today/Today');
    renderWithQuery(<Today />);
    const user = userEvent.setup();
    await user.click(await screen.findByLabelText('I stopped earlier'));
    const at = screen.getByLabelText('Stopped at');
    await user.clear(at);
    await user.type(at, '2026-11-27T09:45'); // Berlin, UTC+1 in November
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    await waitFor(() => expect(screen.queryByRole('timer')).toBeNull());
    expect(api.requests.find((r) => r.path.endsWith('/close'))?.body).toEqual({ closed_at: '2026-11-27T08:45:00.000Z' });
  });

  it('adds a manual block from times in the member’s zone (D-24) and says a refusal with its details', async () => {
    let refuse = true;
    const api = await withApi({
      'GET /v1/me': () => json({ data: ME }),
      'GET /v1/sessions': () => json({ data: [], meta: { cursor: null } }),
      'POST /v1/sessions': () =>
        refuse
          ? {
              status: 400,
              body: {
                error: { code: 'VALIDATION_FAILED', message: 'bad', details: [{ path: 'ended_at', issue: 'must be after started_at' }] },
              },
            }
          : json({ data: { ...started, source: 'manual', state: 'closed' } }, 201),
    });
    close = api.close;
    signedIn(api.auth);
    const { Sessions } = await import('../src/features/sessions/Sessions');
    renderWithQuery(<Sessions />);
    const block = await screen.findByRole('region', { name: 'Add a block of work' });
    const user = userEvent.setup();
    await user.type(within(block).getByLabelText('What did you work on?'), 'Design review');
    await user.type(within(block).getByLabelText('Started at'), '2026-07-01T09:00'); // Berlin, UTC+2 in July
    await user.type(within(block).getByLabelText('Ended at'), '2026-07-01T08:00');
    await user.click(within(block).getByRole('button', { name: 'Add block' }));
    const alert = await within(block).findByRole('alert');
    expect(alert.textContent).toContain('Some of what you entered is not valid.');
    expect(alert.textContent).toContain('ended_at: must be after started_at');
    refuse = false;
    const endedAt = within(block).getByLabelText('Ended at');
    await user.clear(endedAt);
    await user.type(endedAt, '2026-07-01T10:30');
    await user.click(within(block).getByRole('button', { name: 'Add block' }));
    await within(block).findByText('Block added.');
    const posts = api.requests.filter((r) => r.method === 'POST');
    expect(posts[1].body).toMatchObject({
      intent_text: 'Design review',
      source: 'manual',
      started_at: '2026-07-01T07:00:00.000Z',
      ended_at: '2026-07-01T08:30:00.000Z',
    });
  });
});
