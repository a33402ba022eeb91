import { describe, expect, it } from 'vitest';
import { ApiError, parseError, SENTENCES, sentenceFor } from '../src/lib/errors';
import { elapsedSeconds, hold, type Session } from '../src/features/today/api';
import { landingSentence } from '../src/features/plate/api';
import { plateDays } from '../src/features/plate/Plate';
import { addDays, dateIn, formatDuration, localInputToIso, startOfDay, weekdayOf } from '../src/lib/time';

const session = (over: Partial<Session>): Session =>
  ({
    session_id: 's1',
    intent_text: 'x',
    state: 'active',
    source: 'timer',
    work_type: 'intentional',
    goal_id: null,
    project_id: null,
    started_at: '2026-11-27T08:00:00.000Z',
    closed_at: null,
    user_tags: [],
    created_at: '2026-11-27T08:00:00.000Z',
    ...over,
  }) as Session; // without durations unless a test gives them: the fallback for an older API

describe('time in the member time zone (D-29 dates)', () => {
  it('finds the start of a day across offsets and DST changes', () => {
    expect(new Date(startOfDay('2026-11-27', 'Europe/Berlin')).toISOString()).toBe('2026-11-26T23:00:00.000Z');
    expect(new Date(startOfDay('2026-07-01', 'Europe/Berlin')).toISOString()).toBe('2026-06-30T22:00:00.000Z');
    expect(new Date(startOfDay('2026-03-29', 'Europe/Berlin')).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(new Date(startOfDay('2026-11-27', 'America/Los_Angeles')).toISOString()).toBe('2026-11-27T08:00:00.000Z');
    expect(new Date(startOfDay('2026-11-27', 'Asia/Kolkata')).toISOString()).toBe('2026-11-26T18:30:00.000Z');
  });

  it('names the calendar date of an instant, and weekdays', () => {
    expect(dateIn(Date.parse('2026-11-26T23:30:00Z'), 'Europe/Berlin')).toBe('2026-11-27');
    expect(dateIn(Date.parse('2026-11-26T23:30:00Z'), 'UTC')).toBe('2026-11-26');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(weekdayOf('2026-11-27')).toBe('fri');
    expect(weekdayOf('2026-11-30')).toBe('mon');
  });

  it('reads a datetime-local value in the member zone', () => {
    expect(localInputToIso('2026-11-27T09:15', 'Europe/Berlin')).toBe('2026-11-27T08:15:00.000Z');
    expect(localInputToIso('2026-07-01T09:15', 'Europe/Berlin')).toBe('2026-07-01T07:15:00.000Z');
  });

  it('formats durations', () => {
    expect(formatDuration(0)).toBe('0:00:00');
    expect(formatDuration(3723.9)).toBe('1:02:03');
  });
});

describe('elapsed time, pauses excluded (D-49)', () => {
  const received = Date.parse('2026-11-27T10:00:00Z');
  it('counts on from tracked_seconds while active, and stands still while paused', () => {
    expect(elapsedSeconds({ session: session({ tracked_seconds: 100 }), receivedAt: received }, received + 5_000)).toBe(105);
    expect(elapsedSeconds({ session: session({ state: 'paused', tracked_seconds: 100 }), receivedAt: received }, received + 60_000)).toBe(
      100,
    );
  });
  it('counts hours slept through after the answer (the clock, not ticks)', () => {
    expect(elapsedSeconds({ session: session({ tracked_seconds: 10 }), receivedAt: received }, received + 3 * 3600_000)).toBe(
      10 + 3 * 3600,
    );
  });
  it('falls back to started_at without tracked_seconds, frozen while paused', () => {
    expect(elapsedSeconds({ session: session({}), receivedAt: received }, received + 1_000)).toBe(2 * 3600 + 1);
    expect(elapsedSeconds({ session: session({ state: 'paused' }), receivedAt: received }, received + 600_000)).toBe(2 * 3600);
    expect(
      elapsedSeconds({ session: session({ state: 'closed', closed_at: '2026-11-27T08:30:00.000Z' }), receivedAt: received }, received),
    ).toBe(1800);
  });
});

describe('an active session held across refetches (D-49)', () => {
  it('never steps the timer back when a fresher answer rounds its seconds down', () => {
    const run = session({ session_id: 'monotonic', state: 'active', tracked_seconds: 5, paused_seconds: 0 });
    const first = hold(run, 10_000);
    expect(elapsedSeconds(first, 10_800)).toBeCloseTo(5.8);
    // The next answer, 0.8 s later, says 5 again (5.8 rounded down): the timer stays at 5.8 and goes on.
    const second = hold({ ...run }, 10_800);
    expect(elapsedSeconds(second, 10_800)).toBeCloseTo(5.8);
    expect(elapsedSeconds(second, 11_300)).toBeCloseTo(6.3);
    // A pause is a new run: its answer is shown as given.
    expect(elapsedSeconds(hold({ ...run, state: 'paused', tracked_seconds: 6 }, 11_300), 20_000)).toBe(6);
  });
});

describe('a paused session held across refetches', () => {
  it('keeps the moment it was first seen paused when the API gives no durations, and the answer time when it does', () => {
    const t = Date.parse('2026-11-27T10:00:00Z');
    const paused = session({ session_id: 'p1', state: 'paused' });
    expect(hold(paused, t).receivedAt).toBe(t);
    expect(hold(paused, t + 10_000).receivedAt).toBe(t);
    expect(elapsedSeconds(hold(paused, t + 20_000), t + 20_000)).toBe(2 * 3600);
    expect(hold(session({ session_id: 'p1', state: 'active' }), t + 30_000).receivedAt).toBe(t + 30_000);
    expect(hold(paused, t + 40_000).receivedAt).toBe(t + 40_000); // a new pause
    expect(hold(session({ session_id: 'p2', state: 'paused', tracked_seconds: 5 }), t + 50_000).receivedAt).toBe(t + 50_000);
  });
});

describe('errors in words (D-2)', () => {
  it('has a sentence for every code, none of them JSON or a status line', () => {
    for (const [code, sentence] of Object.entries(SENTENCES)) {
      expect(sentence).toMatch(/^[A-Z].+\.$/);
      expect(sentence).not.toMatch(/[{}]|HTTP|\d{3}/);
      expect(code).toMatch(/^[A-Z_]+$/);
    }
  });
  it('reads the D-1 envelope, and anything else by its status', () => {
    expect(parseError(409, { error: { code: 'SESSION_STATE_CONFLICT', message: 'is paused' } }).code).toBe('SESSION_STATE_CONFLICT');
    expect(parseError(502, '<html>bad gateway</html>').code).toBe('UNAVAILABLE');
    expect(parseError(500, null).code).toBe('INTERNAL');
    expect(sentenceFor(new TypeError('Failed to fetch'))).toBe(SENTENCES.UNAVAILABLE);
    expect(new ApiError(503, 'UNAVAILABLE', 'x').retryable).toBe(true);
    expect(new ApiError(400, 'VALIDATION_FAILED', 'x').retryable).toBe(false);
  });
});

describe('plate (D-33)', () => {
  const hours = {
    mon: [{ start: '09:00', end: '17:00' }],
    tue: [],
    wed: [{ start: '09:00', end: '17:00' }],
    thu: [],
    fri: [],
    sat: [],
    sun: [],
  };
  it('shows today and the next working days', () => {
    expect(plateDays('2026-11-27', hours, 4)).toEqual(['2026-11-27', '2026-11-30', '2026-12-02', '2026-12-07']);
  });
  it('says the overflow in words', () => {
    const landed = { plate_item_id: 'i', assignee_id: 'a', plate_date: '2026-11-30', overflowed: true, active_count: 1, capacity: 1 };
    expect(landingSentence(landed, '2026-11-27', 'Ada')).toBe(
      'Friday 27 November was full for Ada, so it went to the next working day with room: Monday 30 November (1 of 1 taken).',
    );
    expect(landingSentence({ ...landed, overflowed: false }, '2026-11-30', 'Ada')).toBe(
      "Added to Ada's plate for Monday 30 November (1 of 1 taken).",
    );
  });
});
