import { QueryClient } from '@tanstack/react-query';
import { waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { json } from './server';
import { withApi } from './mount';

const ME = {
  member_id: '11111111-1111-4111-8111-111111111111',
  workspace_id: '22222222-2222-4222-8222-222222222222',
  kind: 'human',
  role: 'member',
  display_name: 'Ada',
  email: 'ada@example.com',
  timezone: 'Pacific/Kiritimati',
  plate_capacity: 6,
};

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('the first load of Today', () => {
  it('asks for the access token once (D-40), then for Today’s data in the time zone of the member the refresh answered with', async () => {
    const asked: string[] = [];
    let refreshes = 0;
    const api = await withApi({
      'POST /v1/auth/refresh': () => {
        refreshes++;
        return json({ data: { access_token: 'fresh-token', token_type: 'Bearer', expires_in: 600, member: ME } });
      },
      'GET /v1/sessions': ({ query, headers }) => {
        asked.push(`sessions ${query.toString()} ${headers.authorization}`);
        return json({ data: [], meta: { cursor: null } });
      },
      'GET /v1/activity/events': ({ query }) => {
        asked.push(`events from=${query.get('from')}`);
        return json({ data: [], meta: { cursor: null } });
      },
    });
    close = api.close;
    const { prefetchToday } = await import('../src/features/today/api');
    const { dateIn, startOfDay } = await import('../src/lib/time');

    const [first, second] = await Promise.all([api.auth.checkOnLoad(), api.auth.checkOnLoad()]);
    expect([first, second, await api.auth.checkOnLoad()]).toEqual(['fresh-token', 'fresh-token', 'fresh-token']);
    expect(refreshes).toBe(1);

    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    prefetchToday(client);
    await waitFor(() => expect(asked).toHaveLength(4));
    // Kiritimati (UTC+14) is on another calendar day than UTC for fourteen hours of every day: the date is the member's.
    const date = dateIn(Date.now(), ME.timezone);
    expect(asked.sort()).toEqual(
      [
        `events from=${new Date(startOfDay(date, ME.timezone)).toISOString()}`,
        `sessions from=${date}&to=${date}&limit=100 Bearer fresh-token`,
        'sessions state=active&limit=1 Bearer fresh-token',
        'sessions state=paused&limit=1 Bearer fresh-token',
      ].sort(),
    );
    await waitFor(() => expect(client.getQueryData(['live', 'session'])).toBeNull());
    expect(client.getQueryData(['live', 'timeline', date, ME.timezone])).toEqual({ sessions: [], events: [] });
  });
});
