import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { afterEach, describe, expect, it } from 'vitest';
import { json } from './server';
import { renderWithQuery, signedIn, withApi } from './mount';

configure({ asyncUtilTimeout: 8000 });

const HOURS = { mon: [{ start: '09:00', end: '17:00' }], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
const ALL_WEEK = Object.fromEntries(Object.keys(HOURS).map((d) => [d, [{ start: '09:00', end: '17:00' }]]));
const me = (role: string) => ({
  member_id: '11111111-1111-4111-8111-111111111111',
  workspace_id: '22222222-2222-4222-8222-222222222222',
  kind: 'human',
  role,
  display_name: 'Ada',
  email: 'ada@example.com',
  timezone: 'Europe/Berlin',
  working_hours: ALL_WEEK,
  plate_capacity: 6,
});
const BEA = '44444444-4444-4444-8444-444444444444';
const BOT = '55555555-5555-4555-8555-555555555555';
const CY = '66666666-6666-4666-8666-666666666666';
/** `GET /v1/members` as an owner sees it, over two pages. */
const managed = [
  {
    member_id: me('owner').member_id,
    kind: 'human',
    display_name: 'Ada',
    role: 'owner',
    email: 'ada@example.com',
    timezone: 'UTC',
    plate_capacity: 6,
    active: true,
    created_at: '2026-01-01T00:00:00.000Z',
    last_seen_at: '2026-11-27T09:00:00.000Z',
  },
  {
    member_id: BEA,
    kind: 'human',
    display_name: 'Bea',
    role: 'member',
    email: 'bea@example.com',
    timezone: 'UTC',
    plate_capacity: 1,
    active: true,
    created_at: '2026-01-02T00:00:00.000Z',
    last_seen_at: null,
  },
  {
    member_id: BOT,
    kind: 'agent',
    display_name: 'Builder',
    role: 'member',
    email: null,
    timezone: 'UTC',
    plate_capacity: 6,
    active: true,
    created_at: '2026-01-03T00:00:00.000Z',
    last_seen_at: '2026-11-27T08:15:00.000Z',
  },
  {
    member_id: CY,
    kind: 'human',
    display_name: 'Cy',
    role: 'member',
    email: 'cy@example.com',
    timezone: 'UTC',
    plate_capacity: 6,
    active: false,
    created_at: '2026-01-04T00:00:00.000Z',
    last_seen_at: null,
  },
];

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function expectAccessible(): Promise<void> {
  const result = await axe.run(document.body, { rules: { 'color-contrast': { enabled: false } } });
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`)).toEqual([]);
}

describe('Settings: members and agents (GET /v1/members)', () => {
  it('lists every page of members with role, capacity and last use; changes capacity, role, and deactivates', async () => {
    const members = managed.map((m) => ({ ...m }));
    const api = await withApi({
      'GET /v1/me': () => json({ data: me('owner') }),
      'GET /v1/invites': () => json({ data: [] }),
      'GET /v1/members': ({ query }) =>
        query.get('cursor') === 'page-2'
          ? json({ data: members.slice(2), meta: { cursor: null } })
          : json({ data: members.slice(0, 2), meta: { cursor: 'page-2' } }),
      [`PATCH /v1/members/${BEA}`]: ({ body }) => {
        Object.assign(members[1], body);
        return json({ data: members[1] });
      },
      [`POST /v1/members/${BEA}/deactivate`]: () => {
        members[1].active = false;
        return json({ data: members[1] });
      },
    });
    close = api.close;
    signedIn(api.auth);
    const { Members } = await import('../src/features/settings/Members');
    renderWithQuery(<Members me={me('owner') as never} />);
    const table = await screen.findByRole('table', { name: 'Members' });
    expect(within(table).getAllByRole('row')).toHaveLength(5); // both pages
    expect(api.requests.filter((r) => r.path.startsWith('/v1/members')).map((r) => r.path)).toEqual([
      '/v1/members?limit=100',
      '/v1/members?limit=100&cursor=page-2',
    ]);
    const bea = within(table).getByText('Bea').closest('tr')!;
    expect(within(bea).getByText('Never')).toBeTruthy();
    const cy = within(table).getByText('Cy').closest('tr')!;
    expect(within(cy).getByText('deactivated')).toBeTruthy();
    expect(within(cy).queryByRole('button', { name: /Deactivate/ })).toBeNull();
    expect(within(table).getByLabelText<HTMLSelectElement>('Role of Builder').disabled).toBe(true); // agents stay members
    await expectAccessible();

    const user = userEvent.setup();
    const capacity = within(bea).getByLabelText('Items a day for Bea');
    await user.clear(capacity);
    await user.type(capacity, '3');
    await user.tab();
    await waitFor(() =>
      expect(api.requests.some((r) => r.method === 'PATCH' && (r.body as { plate_capacity?: number }).plate_capacity === 3)).toBe(true),
    );
    await user.selectOptions(within(bea).getByLabelText('Role of Bea'), 'admin');
    await waitFor(() =>
      expect(api.requests.some((r) => r.method === 'PATCH' && (r.body as { role?: string }).role === 'admin')).toBe(true),
    );
    await user.click(within(bea).getByRole('button', { name: 'Deactivate Bea' }));
    await waitFor(() => expect(within(table).getByText('Bea').closest('tr')!.textContent).toContain('deactivated'));
  });

  it("lists the workspace's agents with when each was last seen", async () => {
    const api = await withApi({ 'GET /v1/members': () => json({ data: managed, meta: { cursor: null } }) });
    close = api.close;
    signedIn(api.auth);
    const { Agents } = await import('../src/features/settings/Agents');
    renderWithQuery(<Agents />);
    const table = await screen.findByRole('table', { name: 'Agents of the workspace' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(2);
    expect(rows[1].textContent).toContain('Builder');
    expect(rows[1].textContent).toContain(new Date('2026-11-27T08:15:00.000Z').toLocaleString());
    await expectAccessible();
  });
});

describe('Plate: assign to a teammate', () => {
  it('picks the teammate by name (a plain member sees names only) and says the overflow in words', async () => {
    const api = await withApi({
      'GET /v1/me': () => json({ data: me('member') }),
      'GET /v1/members': () =>
        json({
          data: [
            { member_id: BEA, kind: 'human', display_name: 'Bea' },
            { member_id: me('member').member_id, kind: 'human', display_name: 'Ada', role: 'member', active: true },
            { member_id: BOT, kind: 'agent', display_name: 'Builder' },
          ],
          meta: { cursor: null },
        }),
      'GET /v1/plate': ({ query }) =>
        json({ data: { date: query.get('date'), capacity: 6, active_count: 0, items: [] }, meta: { cursor: null } }),
      'POST /v1/plate/assign': ({ body }) => {
        const b = body as { assignee_id: string; plate_date?: string };
        return json(
          {
            data: {
              plate_item_id: '77777777-7777-4777-8777-777777777777',
              assignee_id: b.assignee_id,
              plate_date: '2026-12-01',
              overflowed: true,
              active_count: 1,
              capacity: 1,
            },
          },
          201,
        );
      },
    });
    close = api.close;
    signedIn(api.auth);
    const { Plate } = await import('../src/features/plate/Plate');
    renderWithQuery(<Plate />);
    const form = await screen.findByRole('region', { name: 'Assign to a teammate' });
    const picker = within(form).getByLabelText<HTMLSelectElement>('Teammate');
    await waitFor(() => expect(picker.options).toHaveLength(3));
    expect([...picker.options].map((o) => o.textContent)).toEqual(['Ada (you)', 'Bea', 'Builder (agent)']);
    const user = userEvent.setup();
    await user.selectOptions(picker, 'Bea');
    await user.type(within(form).getByLabelText('Item'), 'Review the release');
    await user.type(within(form).getByLabelText('Day'), '2026-11-30');
    await user.click(within(form).getByRole('button', { name: 'Assign' }));
    const said = await within(form).findByText(/was full for Bea/);
    expect(said.textContent).toBe(
      'Monday 30 November was full for Bea, so it went to the next working day with room: Tuesday 1 December (1 of 1 taken).',
    );
    expect(api.requests.find((r) => r.method === 'POST')?.body).toEqual({
      assignee_id: BEA,
      title: 'Review the release',
      plate_date: '2026-11-30',
    });
    await expectAccessible();
  });
});
