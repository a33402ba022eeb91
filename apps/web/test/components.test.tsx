import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, describe, expect, it } from 'vitest';
import { fail, json, type Handler } from './server';
import { renderWithQuery, signedIn, withApi } from './mount';

const ME = {
  member_id: '11111111-1111-4111-8111-111111111111',
  workspace_id: '22222222-2222-4222-8222-222222222222',
  kind: 'human',
  role: 'owner',
  display_name: 'Ada',
  email: 'ada@example.com',
  timezone: 'Europe/Berlin',
  working_hours: { mon: [{ start: '09:00', end: '17:00' }], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
  plate_capacity: 6,
};
const session = (over: Record<string, unknown>) => ({
  session_id: '33333333-3333-4333-8333-333333333333',
  intent_text: 'Write the release notes',
  state: 'active',
  source: 'timer',
  work_type: 'intentional',
  goal_id: null,
  project_id: null,
  started_at: new Date(Date.now() - 3600_000).toISOString(),
  closed_at: null,
  user_tags: [],
  created_at: new Date(Date.now() - 3600_000).toISOString(),
  tracked_seconds: 125,
  paused_seconds: 0,
  ...over,
});

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** axe-core on what is rendered: no serious or critical violation (colour contrast needs a real browser: e2e). */
async function expectAccessible(): Promise<void> {
  const result = await axe.run(document.body, { rules: { 'color-contrast': { enabled: false } } });
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`)).toEqual([]);
}

describe('sign-in (D-39 … D-41, D-44 names)', () => {
  it('signs in with a password and a second factor, then goes back to the page asked for', async () => {
    let logins = 0;
    const routes: Record<string, Handler> = {
      'GET /v1/auth/providers': () => json({ data: [{ id: 'corp', name: 'Corp SSO' }] }),
      'POST /v1/auth/login': ({ body }) => {
        logins++;
        const b = body as { totp_code?: string };
        if (!b.totp_code) return fail(401, 'SECOND_FACTOR_REQUIRED');
        return json({ data: { access_token: 'jwt', token_type: 'Bearer', expires_in: 600, member: ME } });
      },
    };
    const api = await withApi(routes);
    close = api.close;
    history.replaceState(null, '', '/sign-in?return_to=%2Fplate');
    const { SignIn } = await import('../src/features/auth/SignIn');
    renderWithQuery(<SignIn returnTo="/plate" />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    const code = await screen.findByLabelText('Authentication code');
    expect(await screen.findByRole('link', { name: 'Sign in with Corp SSO' })).toHaveProperty(
      'href',
      `${api.origin}/v1/auth/oidc/corp/start?return_to=%2Fplate`,
    );
    await expectAccessible();
    await user.type(code, '123456');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(location.pathname).toBe('/plate'));
    expect(logins).toBe(2);
    expect(api.requests.find((r) => r.path === '/v1/auth/login' && (r.body as { totp_code?: string }).totp_code === '123456')).toBeTruthy();
    expect(api.auth.isSignedIn()).toBe(true);
  });

  it('says a wrong password in words, with no JSON or status', async () => {
    const api = await withApi({
      'GET /v1/auth/providers': () => json({ data: [] }),
      'POST /v1/auth/login': () => fail(401, 'INVALID_CREDENTIALS', 'raw server message'),
    });
    close = api.close;
    const { SignIn } = await import('../src/features/auth/SignIn');
    renderWithQuery(<SignIn returnTo={null} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'wrong password!!');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('That email and password do not match an account.');
    expect(alert.textContent).not.toMatch(/raw server message|\{|401/);
  });

  it('shows one button per provider and no password form when password sign-in is off (D-41)', async () => {
    const api = await withApi({
      'GET /v1/auth/providers': () =>
        json({
          data: [
            { id: 'corp', name: 'Corp SSO' },
            { id: 'partner', name: 'Partner ID' },
          ],
          meta: { password_login: false },
        }),
    });
    close = api.close;
    const { SignIn } = await import('../src/features/auth/SignIn');
    renderWithQuery(<SignIn returnTo="/sessions" />);
    expect(await screen.findByRole('link', { name: 'Sign in with Partner ID' })).toHaveProperty(
      'href',
      `${api.origin}/v1/auth/oidc/partner/start?return_to=%2Fsessions`,
    );
    expect(screen.getByRole('link', { name: 'Sign in with Corp SSO' })).toBeTruthy();
    expect(screen.queryByLabelText('Password')).toBeNull();
    expect(screen.queryByLabelText('Email')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Sign in' })).toBeNull();
    await expectAccessible();
  });

  it('keeps the password form, with no provider buttons, when none is configured (D-41)', async () => {
    const api = await withApi({ 'GET /v1/auth/providers': () => json({ data: [], meta: { password_login: true } }) });
    close = api.close;
    const { SignIn } = await import('../src/features/auth/SignIn');
    renderWithQuery(<SignIn returnTo={null} />);
    await waitFor(() => expect(api.requests.some((r) => r.path === '/v1/auth/providers')).toBe(true));
    expect(screen.getByLabelText('Password')).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Single sign-on' })).toBeNull();
  });

  it('never follows a return_to to another origin', async () => {
    const { safeReturnTo } = await import('../src/lib/router');
    expect(safeReturnTo('//evil.example.com/x')).toBe('/');
    expect(safeReturnTo('https://evil.example.com')).toBe('/');
    expect(safeReturnTo('/\\evil.example.com')).toBe('/');
    expect(safeReturnTo('/settings?x=1')).toBe('/settings?x=1');
  });
});

describe('the app shell', () => {
  it('sends a signed-out visitor to sign-in with the page to come back to (refresh cookie refused)', async () => {
    const api = await withApi({
      'POST /v1/auth/refresh': () => fail(401, 'UNAUTHENTICATED'),
      'GET /v1/auth/providers': () => json({ data: [] }),
    });
    close = api.close;
    history.replaceState(null, '', '/sessions?x=1');
    const { App } = await import('../src/app/App');
    renderWithQuery(<App />);
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(location.pathname).toBe('/sign-in');
    expect(new URLSearchParams(location.search).get('return_to')).toBe('/sessions?x=1');
  });

  it('refreshes a rejected access token once and retries; a second 401 signs out to sign-in', async () => {
    let refreshes = 0;
    const api = await withApi({
      'POST /v1/auth/refresh': () => {
        refreshes++;
        return refreshes === 1
          ? json({ data: { access_token: 'second', token_type: 'Bearer', expires_in: 600 } })
          : fail(401, 'UNAUTHENTICATED');
      },
      'GET /v1/me': ({ headers }) => (headers.authorization === 'Bearer second' ? json({ data: ME }) : fail(401, 'UNAUTHENTICATED')),
      'GET /v1/sessions': () => json({ data: [], meta: { cursor: null } }),
      'GET /v1/activity/events': () => json({ data: [], meta: { cursor: null } }),
    });
    close = api.close;
    signedIn(api.auth);
    history.replaceState(null, '', '/today');
    const { App } = await import('../src/app/App');
    renderWithQuery(<App />);
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeTruthy();
    expect(refreshes).toBe(1);
    for (const name of ['Today', 'Sessions', 'Plate', 'Reports', 'Settings']) expect(screen.getByRole('link', { name })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Today' }).getAttribute('aria-current')).toBe('page');
  });
});

describe('Today (D-44)', () => {
  it('shows the live session with a ticking timer, pauses and resumes it, and stops it', async () => {
    let current = session({});
    const api = await withApi({
      'GET /v1/me': () => json({ data: ME }),
      'GET /v1/sessions': ({ query }) => {
        const state = query.get('state');
        if (state) return json({ data: current.state === state ? [current] : [], meta: { cursor: null } });
        return json({ data: [current], meta: { cursor: null } });
      },
      'GET /v1/activity/events': () =>
        json({
          data: [
            {
              event_id: 'e1',
              source_type: 'ci',
              event_type: 'deploy',
              occurred_at: new Date().toISOString(),
              received_at: new Date().toISOString(),
              payload: {},
              external_id: null,
              session_id: current.session_id,
            },
            {
              event_id: 'e2',
              source_type: 'cron',
              event_type: 'backup',
              occurred_at: new Date().toISOString(),
              received_at: new Date().toISOString(),
              payload: {},
              external_id: null,
              session_id: null,
            },
          ],
          meta: { cursor: null },
        }),
      'POST /v1/sessions/33333333-3333-4333-8333-333333333333/pause': () => {
        current = session({ state: 'paused', tracked_seconds: 130 });
        return json({ data: current });
      },
      'POST /v1/sessions/33333333-3333-4333-8333-333333333333/resume': () => {
        current = session({ state: 'active', tracked_seconds: 130 });
        return json({ data: current });
      },
      'POST /v1/sessions/33333333-3333-4333-8333-333333333333/close': () => {
        current = session({ state: 'closed', closed_at: new Date().toISOString(), tracked_seconds: 131 });
        return json({ data: current });
      },
    });
    close = api.close;
    signedIn(api.auth);
    const { Today } = await import('../src/features/today/Today');
    renderWithQuery(<Today />);
    const timer = await screen.findByRole('timer');
    expect(timer.textContent).toMatch(/^0:02:0[5-7]$/);
    await waitFor(() => expect(screen.getByRole('timer').textContent).not.toBe('0:02:05'), { timeout: 2500 });
    expect(screen.getByLabelText('What are you working on?')).toBeTruthy();
    const timeline = await screen.findByRole('region', { name: "Today's timeline" });
    expect(within(timeline).getByText('Outside any session')).toBeTruthy();
    expect(within(timeline).getByText(/deploy/)).toBeTruthy();
    await expectAccessible();

    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Pause' }));
    await screen.findByRole('button', { name: 'Resume' });
    expect(screen.getByRole('timer').textContent).toBe('0:02:10');
    await act(() => new Promise((r) => setTimeout(r, 1100)));
    expect(screen.getByRole('timer').textContent).toBe('0:02:10');
    await user.click(screen.getByRole('button', { name: 'Resume' }));
    await screen.findByRole('button', { name: 'Pause' });
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    await waitFor(() => expect(screen.queryByRole('timer')).toBeNull());
    expect(api.requests.every((r) => r.authorization === 'Bearer test-access-token')).toBe(true);
  });

  it('offers "Try again" when the service is unavailable (503)', async () => {
    const api = await withApi({
      'GET /v1/me': () => fail(503, 'UNAVAILABLE', 'identity did not answer in 5000 ms'),
    });
    close = api.close;
    signedIn(api.auth);
    const { Today } = await import('../src/features/today/Today');
    renderWithQuery(<Today />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('cannot be reached right now');
    expect(alert.textContent).not.toContain('5000 ms');
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});

describe('Settings: API tokens (D-10, D-43, D-44 names)', () => {
  it('creates a token shown once in "New token", lists it with its last use, and revokes it', async () => {
    let tokens: Record<string, unknown>[] = [];
    const api = await withApi({
      'GET /v1/tokens': () => json({ data: tokens }),
      'POST /v1/tokens': ({ body }) => {
        const b = body as { name: string; scope: string; expires_in_days?: number };
        tokens = [
          {
            token_id: 'abcdefgh',
            name: b.name,
            scope: b.scope,
            created_at: new Date().toISOString(),
            last_used_at: null,
            revoked_at: null,
          },
        ];
        return json({ data: { ...tokens[0], token: 'wt_abcdefgh_secretsecretsecret' } }, 201);
      },
      'DELETE /v1/tokens/abcdefgh': () => {
        tokens = [];
        return { status: 204 };
      },
    });
    close = api.close;
    signedIn(api.auth);
    const { ApiTokens } = await import('../src/features/settings/ApiTokens');
    renderWithQuery(<ApiTokens />);
    const section = screen.getByRole('region', { name: 'API tokens' });
    const user = userEvent.setup();
    await user.type(within(section).getByLabelText('Token name'), 'laptop cli');
    await user.type(within(section).getByLabelText('Expires after (days)'), '30');
    await user.click(within(section).getByRole('button', { name: 'Create token' }));
    const shown = await within(section).findByRole('status', { name: 'New token' });
    expect(shown.textContent).toBe('wt_abcdefgh_secretsecretsecret');
    expect(api.requests.find((r) => r.method === 'POST')?.body).toEqual({ name: 'laptop cli', scope: 'full', expires_in_days: 30 });
    const row = (await within(section).findByRole('cell', { name: 'laptop cli' })).closest('tr') as HTMLElement;
    expect(within(row).getAllByRole('cell', { name: 'never' })).toHaveLength(2); // last used, expires
    await expectAccessible();
    await user.click(within(row).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(within(section).queryByRole('cell', { name: 'laptop cli' })).toBeNull());
  });
});
