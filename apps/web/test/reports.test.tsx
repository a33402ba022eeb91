import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
const ZERO = {
  tracked_seconds: 0,
  paused_seconds: 0,
  session_count: 0,
  linked_event_count: 0,
  outside_session_event_count: 0,
  usage_cost: '0',
  input_tokens: 0,
  output_tokens: 0,
};
const row = (group: Record<string, unknown>, over: Partial<typeof ZERO>) => ({ group, ...ZERO, ...over });

/** The D-50 answer for each `group_by` the page asks for, over the requested period. */
function summaryFor(query: URLSearchParams) {
  const from = query.get('from')!;
  const to = query.get('to')!;
  const totals = {
    ...ZERO,
    tracked_seconds: 5 * 3600 + 300,
    paused_seconds: 600,
    session_count: 3,
    linked_event_count: 12,
    outside_session_event_count: 4,
    usage_cost: '1.234500000',
    input_tokens: 120_000,
    output_tokens: 8_000,
  };
  const meta = { as_of: new Date().toISOString(), tz: query.get('tz'), from, to, totals };
  const data = {
    day: [row({ day: from }, { tracked_seconds: 3 * 3600, session_count: 2, outside_session_event_count: 1 })],
    work_type: [
      row({ work_type: 'intentional' }, { tracked_seconds: 4 * 3600, session_count: 2, linked_event_count: 10, usage_cost: '1.2' }),
      row({ work_type: 'reactive' }, { tracked_seconds: 3600 + 300, session_count: 1, linked_event_count: 2 }),
      row({ work_type: null }, { outside_session_event_count: 4, usage_cost: '0.0345' }),
    ],
    member_kind: [
      row({ member_kind: 'human' }, { tracked_seconds: 2 * 3600, session_count: 2 }),
      row({ member_kind: 'agent' }, { tracked_seconds: 3 * 3600 + 300, session_count: 1, usage_cost: '1.2345' }),
    ],
  }[query.get('group_by') ?? ''];
  return data ? json({ data, meta }) : fail(400, 'VALIDATION_FAILED');
}

// A shared, busy machine: give each wait and each test room.
configure({ asyncUtilTimeout: 8000 });

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
  vi.restoreAllMocks();
});

async function expectAccessible(): Promise<void> {
  const result = await axe.run(document.body, { rules: { 'color-contrast': { enabled: false } } });
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`)).toEqual([]);
}

async function mountReports(routes: Record<string, Handler>) {
  const api = await withApi({ 'GET /v1/me': () => json({ data: ME }), ...routes });
  close = api.close;
  signedIn(api.auth);
  const { Reports } = await import('../src/features/reports/Reports');
  renderWithQuery(<Reports />);
  await screen.findByRole('heading', { name: 'Reports', level: 1 });
  return api;
}

const summaries = (requests: Array<{ path: string }>) =>
  requests.filter((r) => r.path.startsWith('/v1/reports/summary')).map((r) => new URL(r.path, 'http://x').searchParams);

describe('Reports (D-50 … D-52)', () => {
  it("shows this week in the member's time zone: totals and spend, every day, work types, people against agents", async () => {
    const api = await mountReports({ 'GET /v1/reports/summary': ({ query }) => summaryFor(query) });
    const summary = await screen.findByRole('region', { name: 'Summary' });
    await within(summary).findByRole('table', { name: 'Tracked time by day' });
    const asked = summaries(api.requests);
    expect(asked.map((q) => q.get('group_by')).sort()).toEqual(['day', 'member_kind', 'work_type']);
    const { from, to } = Object.fromEntries(asked[0]);
    expect(new Date(`${from}T12:00:00Z`).getUTCDay()).toBe(1); // a Monday
    expect(Date.parse(to) - Date.parse(from)).toBe(6 * 86_400_000);
    expect(asked.every((q) => q.get('tz') === 'Europe/Berlin' && q.get('from') === from && q.get('to') === to)).toBe(true);
    expect(api.requests.every((r) => r.authorization === 'Bearer test-access-token')).toBe(true);

    // Totals, spend and tokens in words and numbers.
    expect(within(summary).getByText('5 h 05 min')).toBeTruthy();
    expect(within(summary).getByText('$1.23')).toBeTruthy();
    expect(within(summary).getByText('120,000')).toBeTruthy();
    expect(within(summary).getByText('8,000')).toBeTruthy();
    const outside = within(summary).getByText('Events outside any session').parentElement!;
    expect(within(outside).getByText('4')).toBeTruthy();
    // Every day of the week is a row, days without work at 0.
    const days = within(within(summary).getByRole('table', { name: 'Tracked time by day' })).getAllByRole('row');
    expect(days).toHaveLength(8); // the header and seven days
    expect(within(days[1]).getByText('3 h 00 min')).toBeTruthy();
    expect(within(days[2]).getByText('0 h 00 min')).toBeTruthy();

    const types = await screen.findByRole('table', { name: 'By work type' });
    expect(within(types).getByRole('rowheader', { name: 'Intentional (planned)' })).toBeTruthy();
    expect(within(types).getByRole('rowheader', { name: 'Reactive (interruptions)' })).toBeTruthy();
    const outsideRow = within(types).getByRole('rowheader', { name: 'Outside any session' }).closest('tr')!;
    expect(within(outsideRow).getByText('$0.03')).toBeTruthy(); // usage outside any session still counts as spend
    const kinds = await screen.findByRole('table', { name: 'Human and agent work' });
    expect(within(within(kinds).getByRole('rowheader', { name: 'Agents' }).closest('tr')!).getByText('3 h 05 min')).toBeTruthy();
    expect(within(kinds).getByRole('rowheader', { name: 'People' })).toBeTruthy();
    await expectAccessible();
  });

  it('picks last week or custom dates by keyboard, and says a reversed range in words without asking the server', async () => {
    const api = await mountReports({ 'GET /v1/reports/summary': ({ query }) => summaryFor(query) });
    await screen.findByRole('table', { name: 'Tracked time by day' });
    const thisWeek = summaries(api.requests)[0].get('from')!;
    const user = userEvent.setup();
    await user.click(screen.getByRole('radio', { name: 'Last week' }));
    await waitFor(() => expect(summaries(api.requests).some((q) => q.get('to') === lastDay(thisWeek, -1))).toBe(true));
    expect(summaries(api.requests).at(-1)?.get('from')).toBe(lastDay(thisWeek, -7));

    await user.click(screen.getByRole('radio', { name: 'Custom dates' }));
    const from = screen.getByLabelText('From');
    const to = screen.getByLabelText('To');
    await user.clear(from);
    await user.type(from, '2026-03-10');
    await user.clear(to);
    await user.type(to, '2026-03-01');
    const before = api.requests.length;
    await user.click(screen.getByRole('button', { name: 'Show' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The first day must not be after the last day.');
    expect(api.requests.length).toBe(before);
    await user.clear(to);
    await user.type(to, '2026-03-12');
    await user.keyboard('{Enter}');
    await waitFor(() =>
      expect(summaries(api.requests).some((q) => q.get('from') === '2026-03-10' && q.get('to') === '2026-03-12')).toBe(true),
    );
    const table = await screen.findByRole('table', { name: 'Tracked time by day' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(4));
    await expectAccessible();
  });

  it('downloads the CSV with the bearer token and Accept: text/csv, and saves it as a file', async () => {
    const accepts: string[] = [];
    const csv = 'day,work_type,tracked_seconds\r\n2026-03-09,intentional,3600\r\n';
    const api = await mountReports({
      'GET /v1/reports/summary': ({ query, headers }) => {
        accepts.push(String(headers.accept));
        return headers.accept === 'text/csv' ? { status: 200, type: 'text/csv', body: csv } : summaryFor(query);
      },
    });
    await screen.findByRole('table', { name: 'Tracked time by day' });
    const saved: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      saved.push(blob);
      return 'blob:report';
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const clicks: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download);
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Download CSV' }));
    await screen.findByText('The CSV file is downloaded.');
    expect(accepts).toContain('text/csv');
    const csvRequest = api.requests.find((r) => r.path.includes('group_by=day%2Cwork_type'));
    expect(csvRequest?.authorization).toBe('Bearer test-access-token');
    expect(saved).toHaveLength(1);
    expect(saved[0].type).toBe('text/csv');
    expect(await saved[0].text()).toBe(csv);
    expect(clicks[0]).toMatch(/^worktrack-summary-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  });

  it('says every failure in words: a 503 with "Try again", a refused CSV without JSON', async () => {
    let down = true;
    await mountReports({
      'GET /v1/reports/summary': ({ query, headers }) => {
        if (headers.accept === 'text/csv') return fail(403, 'FORBIDDEN', '{"raw":"json"}');
        return down ? fail(503, 'UNAVAILABLE', 'reporting did not answer') : summaryFor(query);
      },
    });
    const alerts = await screen.findAllByRole('alert');
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) {
      expect(alert.textContent).toContain('cannot be reached right now');
      expect(alert.textContent).not.toContain('reporting did not answer');
    }
    down = false;
    const user = userEvent.setup();
    await user.click(within(alerts[0]).getByRole('button', { name: 'Try again' }));
    await screen.findByRole('table', { name: 'Tracked time by day' });
    await user.click(screen.getByRole('button', { name: 'Download CSV' }));
    await screen.findByText('You are not allowed to do that. Ask an owner or admin of your workspace.');
    expect(document.body.textContent).not.toContain('raw');
  });
});

function lastDay(monday: string, days: number): string {
  const d = new Date(`${monday}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
