import { MAX_EXTERNAL_ID_LENGTH, MAX_FUTURE_SKEW_MS, SLUG_PATTERN } from '@worktrack/contracts';
import { readCalendarFixture } from '../../test/fixtures/calendar/calendar-fixtures';
import { CalendarPlan, instanceFingerprint, instanceKey, planCalendarEvents } from './calendar.mapper';
import type { KnownInstance } from '../store/entities/connector.entity';
import { CalendarInstance, MAX_SEQUENCE, TimeWindow, expandInstances, parseIcsFeed } from './ics-feed';

const STANDUP = '0f4c2b1e9d7a4c33a1b2c3d4e5f60718@google.com';
const REVIEW = '7c1d5e0a3b9f4d2e8f6a5b4c3d2e1f00@google.com';
const OFFSITE = '2b8e4f6a1c3d5e7f9a0b1c2d3e4f5a6b@google.com';
const ONE_ON_ONE = '5d6e7f8091a2b3c4d5e6f708192a3b4c@google.com';

const WEEK: TimeWindow = { from: new Date('2026-11-16T00:00:00Z'), to: new Date('2026-11-28T00:00:00Z') };
const FIRST_POLL = new Date('2026-11-20T12:00:00Z');
const UPDATE_POLL = new Date('2026-11-20T15:00:00Z');

const instancesOf = (fixture: string, window = WEEK): CalendarInstance[] =>
  expandInstances(parseIcsFeed(readCalendarFixture(fixture)), window);
const poll = (fixture: string, known: KnownInstance[], now: Date, window = WEEK): CalendarPlan =>
  planCalendarEvents({ instances: instancesOf(fixture, window), known, now, window });
const ids = (plan: CalendarPlan): Array<[string, string, string]> => plan.events.map((e) => [e.eventType, e.externalId, e.occurredAt]);

const instance = (overrides: Partial<CalendarInstance> = {}): CalendarInstance => ({
  uid: 'evt-1',
  recurrenceId: null,
  sequence: 0,
  status: 'confirmed',
  title: 'Planning',
  start: '2026-11-18T10:00:00.000Z',
  end: '2026-11-18T11:00:00.000Z',
  allDay: false,
  hasOrganizer: true,
  attendeeCount: 2,
  ...overrides,
});

/** Every rule of the ingestion contract an event must pass (SLUG_PATTERN, length, RFC 3339 UTC, D-19). */
function expectValidEvents(plan: CalendarPlan, now: Date): void {
  for (const event of plan.events) {
    expect(event.sourceType).toBe('calendar');
    expect(event.eventType).toMatch(SLUG_PATTERN);
    expect(event.externalId.length).toBeLessThanOrEqual(MAX_EXTERNAL_ID_LENGTH);
    expect(event.occurredAt).toBe(new Date(event.occurredAt).toISOString());
    expect(Date.parse(event.occurredAt)).toBeLessThanOrEqual(now.getTime());
    expect(Date.parse(event.occurredAt)).toBeLessThanOrEqual(now.getTime() + MAX_FUTURE_SKEW_MS);
  }
}

describe('planCalendarEvents on the team feed', () => {
  const first = poll('team.ics', [], FIRST_POLL);

  it('first poll: emits the started, non-cancelled instances only, at their start', () => {
    expect(ids(first)).toEqual([
      ['calendar.meeting', `${STANDUP}/2026-11-16T08:30:00.000Z`, '2026-11-16T09:30:00.000Z'],
      ['calendar.meeting', OFFSITE, '2026-11-17T00:00:00.000Z'],
      ['calendar.meeting', REVIEW, '2026-11-19T13:00:00.000Z'],
      ['calendar.meeting', `${STANDUP}/2026-11-20T08:30:00.000Z`, '2026-11-20T08:30:00.000Z'],
    ]);
    expectValidEvents(first, FIRST_POLL);
  });

  it('maps metadata only into a snake_case payload', () => {
    expect(first.events.find((e) => e.externalId === REVIEW)?.payload).toEqual({
      uid: REVIEW,
      recurrence_id: null,
      sequence: 0,
      title: 'Design review: connectors',
      status: 'confirmed',
      starts_at: '2026-11-19T13:00:00.000Z',
      ends_at: '2026-11-19T14:00:00.000Z',
      duration_minutes: 60,
      all_day: false,
      has_organizer: true,
      attendee_count: 3,
    });
    expect(first.events[0]?.payload).toEqual({
      uid: STANDUP,
      recurrence_id: '2026-11-16T08:30:00.000Z',
      sequence: 1,
      title: 'Team standup (after the all-hands)',
      status: 'confirmed',
      starts_at: '2026-11-16T09:30:00.000Z',
      ends_at: '2026-11-16T09:45:00.000Z',
      duration_minutes: 15,
      all_day: false,
      has_organizer: true,
      attendee_count: 4,
    });
    expect(first.events[1]?.payload).toMatchObject({ all_day: true, duration_minutes: 1440, has_organizer: false, attendee_count: 0 });
  });

  it('never puts DESCRIPTION, LOCATION or attendee addresses into a payload', () => {
    const updated = poll('team-updated.ics', first.state, UPDATE_POLL);
    const text = JSON.stringify([first.events, updated.events]);

    for (const leak of ['zoom.us', 'pwd=secret', 'Passcode', '884211', 'meet.google.com', 'Spree', 'Potsdam', 'mailto', '@example.']) {
      expect(text).not.toContain(leak);
    }
  });

  it('remembers every instance of the window, the future and the cancelled ones too', () => {
    expect(first.state.map((s) => [s.key, s.emitted, s.cancelled, s.start])).toEqual([
      [`${STANDUP}/2026-11-16T08:30:00.000Z`, true, false, '2026-11-16T09:30:00.000Z'],
      [OFFSITE, true, false, '2026-11-17T00:00:00.000Z'],
      [REVIEW, true, false, '2026-11-19T13:00:00.000Z'],
      [`${STANDUP}/2026-11-20T08:30:00.000Z`, true, false, '2026-11-20T08:30:00.000Z'],
      [`${STANDUP}/2026-11-23T08:30:00.000Z`, false, true, '2026-11-23T08:30:00.000Z'],
      [ONE_ON_ONE, false, false, '2026-11-24T13:00:00.000Z'],
      [`${STANDUP}/2026-11-25T08:30:00.000Z`, false, false, '2026-11-25T08:30:00.000Z'],
      [`${STANDUP}/2026-11-27T08:30:00.000Z`, false, false, '2026-11-27T08:30:00.000Z'],
    ]);
    expect(first.state.find((s) => s.key === REVIEW)).toEqual({
      key: REVIEW,
      sequence: 0,
      fingerprint: instanceFingerprint(instancesOf('team.ics').find((i) => i.uid === REVIEW) as CalendarInstance),
      emitted: true,
      cancelled: false,
      start: '2026-11-19T13:00:00.000Z',
    });
  });

  it('second poll of the same feed emits nothing and keeps the state', () => {
    const second = poll('team.ics', first.state, new Date('2026-11-20T12:30:00Z'));

    expect(second.events).toEqual([]);
    expect(second.state).toEqual(first.state);
  });

  it('updated feed: the rescheduled review as .updated and the cancelled standup as .cancelled', () => {
    const updated = poll('team-updated.ics', first.state, UPDATE_POLL);

    expect(ids(updated)).toEqual([
      ['calendar.meeting.cancelled', `${STANDUP}/2026-11-20T08:30:00.000Z!cancelled`, '2026-11-20T15:00:00.000Z'],
      ['calendar.meeting.updated', `${REVIEW}@1`, '2026-11-20T15:00:00.000Z'],
    ]);
    expect(updated.events[1]?.payload).toMatchObject({
      sequence: 1,
      title: 'Design review: connectors (rescheduled)',
      starts_at: '2026-11-19T13:30:00.000Z',
      ends_at: '2026-11-19T14:30:00.000Z',
      duration_minutes: 60,
    });
    expect(updated.events[0]?.payload).toMatchObject({
      uid: STANDUP,
      recurrence_id: '2026-11-20T08:30:00.000Z',
      status: 'cancelled',
      sequence: 1,
    });
    expectValidEvents(updated, UPDATE_POLL);
    expect(updated.state.find((s) => s.key === `${STANDUP}/2026-11-20T08:30:00.000Z`)).toMatchObject({
      emitted: true,
      cancelled: true,
      sequence: 1,
    });
    expect(updated.state.find((s) => s.key === REVIEW)).toMatchObject({ emitted: true, sequence: 1, start: '2026-11-19T13:30:00.000Z' });

    const again = poll('team-updated.ics', updated.state, new Date('2026-11-20T16:00:00Z'));
    expect(again.events).toEqual([]);
  });

  it('later poll: emits what has started since, never the cancelled instance, and drops what left the window', () => {
    const now = new Date('2026-11-25T10:00:00Z');
    const window: TimeWindow = { from: new Date('2026-11-23T00:00:00Z'), to: new Date('2026-12-07T00:00:00Z') };
    const later = poll('team.ics', first.state, now, window);

    expect(ids(later)).toEqual([
      ['calendar.meeting', ONE_ON_ONE, '2026-11-24T13:00:00.000Z'],
      ['calendar.meeting', `${STANDUP}/2026-11-25T08:30:00.000Z`, '2026-11-25T08:30:00.000Z'],
    ]);
    expect(later.events[0]?.payload).toMatchObject({ status: 'tentative', title: '1:1 Ana / Ben' });
    expect(later.state.map((s) => s.key)).toEqual([
      `${STANDUP}/2026-11-23T08:30:00.000Z`,
      ONE_ON_ONE,
      `${STANDUP}/2026-11-25T08:30:00.000Z`,
      `${STANDUP}/2026-11-27T08:30:00.000Z`,
    ]);
    expectValidEvents(later, now);
  });

  it('is deterministic: the same inputs, in any order, give the same events and state', () => {
    const instances = instancesOf('team-updated.ics');
    const input = { instances, known: first.state, now: UPDATE_POLL, window: WEEK };
    const reversed = { ...input, instances: [...instances].reverse(), known: [...first.state].reverse() };

    expect(planCalendarEvents(input)).toEqual(planCalendarEvents(input));
    expect(planCalendarEvents(reversed)).toEqual(planCalendarEvents(input));
    // A poll repeated after a crash (state not saved) re-sends the same externalIds for ingestion to deduplicate.
    expect(poll('team.ics', [], new Date('2026-11-20T12:05:00Z')).events.map((e) => e.externalId)).toEqual(
      first.events.map((e) => e.externalId),
    );
  });
});

describe('planCalendarEvents rules', () => {
  const window: TimeWindow = { from: new Date('2026-11-16T00:00:00Z'), to: new Date('2026-11-30T00:00:00Z') };
  const now = new Date('2026-11-18T12:00:00Z');
  const plan = (instances: CalendarInstance[], known: KnownInstance[] = [], at = now): CalendarPlan =>
    planCalendarEvents({ instances, known, now: at, window });

  it('waits for a meeting to start: nothing before, calendar.meeting at its start once started', () => {
    const before = plan([instance()], [], new Date('2026-11-18T09:59:59.999Z'));
    const atStart = plan([instance()], before.state, new Date('2026-11-18T10:00:00.000Z'));

    expect(before.events).toEqual([]);
    expect(before.state).toMatchObject([{ key: 'evt-1', emitted: false }]);
    expect(ids(atStart)).toEqual([['calendar.meeting', 'evt-1', '2026-11-18T10:00:00.000Z']]);
  });

  it('never emits a cancelled instance that was not emitted, even when it is restored later it emits once', () => {
    const cancelled = plan([instance({ status: 'cancelled', sequence: 1 })]);
    const restored = plan([instance({ sequence: 2 })], cancelled.state);

    expect(cancelled.events).toEqual([]);
    expect(cancelled.state).toMatchObject([{ emitted: false, cancelled: true }]);
    expect(ids(restored)).toEqual([['calendar.meeting', 'evt-1', '2026-11-18T10:00:00.000Z']]);
  });

  it('emits .cancelled once for an emitted instance', () => {
    const emitted = plan([instance()]);
    const cancelled = plan([instance({ status: 'cancelled', sequence: 1 })], emitted.state);
    const again = plan([instance({ status: 'cancelled', sequence: 2, title: 'Planning (cancelled)' })], cancelled.state);

    expect(ids(cancelled)).toEqual([['calendar.meeting.cancelled', 'evt-1!cancelled', '2026-11-18T12:00:00.000Z']]);
    expect(again.events).toEqual([]);
  });

  it('emits .cancelled for an emitted instance gone from the feed while its start is in the window', () => {
    const emitted = plan([
      instance({ uid: 's', recurrenceId: '2026-11-18T10:00:00.000Z' }),
      instance({ uid: 'gone-unemitted', start: '2026-11-20T10:00:00.000Z', end: '2026-11-20T11:00:00.000Z' }),
    ]);
    const vanished = plan([], emitted.state);

    expect(ids(vanished)).toEqual([['calendar.meeting.cancelled', 's/2026-11-18T10:00:00.000Z!cancelled', '2026-11-18T12:00:00.000Z']]);
    expect(vanished.events[0]?.payload).toEqual({
      uid: 's',
      recurrence_id: '2026-11-18T10:00:00.000Z',
      sequence: 0,
      title: null,
      status: 'cancelled',
      starts_at: '2026-11-18T10:00:00.000Z',
      ends_at: null,
      duration_minutes: null,
      all_day: null,
      has_organizer: null,
      attendee_count: null,
    });
    expect(vanished.state).toMatchObject([{ key: 's/2026-11-18T10:00:00.000Z', emitted: true, cancelled: true }]);
    expect(plan([], vanished.state).events).toEqual([]);
  });

  it('forgets, without an event, an instance whose start fell out of the window', () => {
    const emitted = plan([instance()]);
    const slid = planCalendarEvents({
      instances: [],
      known: emitted.state,
      now: new Date('2026-11-25T12:00:00Z'),
      window: { from: new Date('2026-11-19T00:00:00Z'), to: new Date('2026-12-03T00:00:00Z') },
    });

    expect(slid).toEqual({ events: [], state: [] });
  });

  it('emits .updated only when SEQUENCE rose and the fingerprint changed, both against the version emitted', () => {
    const emitted = plan([instance()]);
    const sameContent = plan([instance({ sequence: 1 })], emitted.state);
    const retitled = plan([instance({ sequence: 1, title: 'Planning Q1' })], sameContent.state);
    const retitledWithoutBump = plan([instance({ sequence: 1, title: 'Planning Q2' })], retitled.state);
    const moved = { title: 'Planning Q2', start: '2026-11-18T11:00:00.000Z', end: '2026-11-18T12:00:00.000Z' };
    const bumped = plan([instance({ sequence: 2, ...moved })], retitledWithoutBump.state);

    expect(sameContent.events).toEqual([]);
    expect(sameContent.state).toMatchObject([{ sequence: 0, fingerprint: emitted.state[0]?.fingerprint }]);
    expect(ids(retitled)).toEqual([['calendar.meeting.updated', 'evt-1@1', '2026-11-18T12:00:00.000Z']]);
    expect(retitled.events[0]?.payload).toMatchObject({ title: 'Planning Q1', sequence: 1 });
    expect(retitledWithoutBump.events).toEqual([]);
    expect(ids(bumped)).toEqual([['calendar.meeting.updated', 'evt-1@2', '2026-11-18T12:00:00.000Z']]);
    expect(bumped.events[0]?.payload).toMatchObject({ title: 'Planning Q2', starts_at: '2026-11-18T11:00:00.000Z', sequence: 2 });
    expect(plan([instance({ sequence: 2, ...moved })], bumped.state).events).toEqual([]);
  });

  it('keys occurrences by UID and RECURRENCE-ID, and shortens an overlong UID with sha256', () => {
    const longUid = `${'x'.repeat(300)}@calendar.example.com`;
    const key = instanceKey(longUid, '2026-11-18T10:00:00.000Z');

    expect(instanceKey('abc@google.com', null)).toBe('abc@google.com');
    expect(instanceKey('abc@google.com', '2026-11-18T10:00:00.000Z')).toBe('abc@google.com/2026-11-18T10:00:00.000Z');
    const shortened = 'sha256:303fb52b87a471790bccbc0c0da4ff312b2e2e17f1f1242438bceae5590f67d0';

    expect(key).toBe(`${shortened}/2026-11-18T10:00:00.000Z`);
    expect(instanceKey(longUid, null)).toBe(shortened);
    expect(instanceKey('y'.repeat(245), null)).toBe('y'.repeat(245));
    expect(instanceKey('y'.repeat(246), null)).toMatch(/^sha256:/);

    const emitted = plan([instance({ uid: longUid, recurrenceId: '2026-11-18T10:00:00.000Z' })]);
    const updated = plan(
      [instance({ uid: longUid, recurrenceId: '2026-11-18T10:00:00.000Z', sequence: MAX_SEQUENCE, title: 'x' })],
      emitted.state,
    );

    expect(emitted.events[0]?.externalId).toBe(key);
    expect(emitted.events[0]?.payload).toMatchObject({ uid: shortened, recurrence_id: '2026-11-18T10:00:00.000Z' });
    expect(updated.events[0]?.externalId).toBe(`${key}@2147483647`);
    expectValidEvents(updated, now);
  });

  it('keeps a title that looks like a secret out of the payload, and cuts long titles', () => {
    const secret = plan([instance({ title: 'rotate ghp_abcdefghijklmnopqrstuvwx today' })]);
    const long = plan([instance({ title: 'a'.repeat(500) })]);

    expect(secret.events[0]?.payload).toMatchObject({ title: null });
    expect(long.events[0]?.payload['title']).toBe(`${'a'.repeat(199)}…`);
  });

  it('ignores instances starting outside the window', () => {
    const outside = plan([instance({ start: '2026-11-10T10:00:00.000Z', end: '2026-11-10T11:00:00.000Z' })]);

    expect(outside).toEqual({ events: [], state: [] });
  });
});
