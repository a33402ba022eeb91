import { localDate, splitByDay, startOfDay, wholeHourOffsets, wholeWeeks } from './day-split';

const at = (iso: string): Date => new Date(iso);
const H = 3_600_000;

describe('splitByDay (D-50: a session split at each midnight of the zone)', () => {
  it('splits at midnight in Europe/Berlin on the spring DST day (a 23-hour day)', () => {
    // 2026-03-28 23:00 CET to 2026-03-29 06:00 CEST: one hour on the 28th, five on the 29th.
    expect(splitByDay(at('2026-03-28T22:00:00Z'), at('2026-03-29T04:00:00Z'), [], 'Europe/Berlin')).toEqual([
      { day: '2026-03-28', trackedMs: 1 * H, pausedMs: 0 },
      { day: '2026-03-29', trackedMs: 5 * H, pausedMs: 0 },
    ]);
    expect(startOfDay('2026-03-30', 'Europe/Berlin').getTime() - startOfDay('2026-03-29', 'Europe/Berlin').getTime()).toBe(23 * H);
  });

  it('splits at midnight in America/New_York on the autumn DST day (a 25-hour day)', () => {
    expect(splitByDay(at('2026-11-01T03:00:00Z'), at('2026-11-01T09:00:00Z'), [], 'America/New_York')).toEqual([
      { day: '2026-10-31', trackedMs: 1 * H, pausedMs: 0 },
      { day: '2026-11-01', trackedMs: 5 * H, pausedMs: 0 },
    ]);
    expect(startOfDay('2026-11-02', 'America/New_York').getTime() - startOfDay('2026-11-01', 'America/New_York').getTime()).toBe(25 * H);
  });

  it('the same interval is one day in another zone', () => {
    expect(splitByDay(at('2026-03-28T22:00:00Z'), at('2026-03-29T04:00:00Z'), [], 'America/New_York')).toEqual([
      { day: '2026-03-28', trackedMs: 6 * H, pausedMs: 0 },
    ]);
  });

  it('moves paused time out of the tracked time, on the day the pause falls (D-49)', () => {
    const pauses = [{ pausedAt: at('2026-06-01T21:30:00Z'), resumedAt: at('2026-06-01T22:30:00Z') }];
    // Berlin is UTC+2 in June: midnight is 22:00Z, so the pause is half on each day.
    expect(splitByDay(at('2026-06-01T20:00:00Z'), at('2026-06-02T00:00:00Z'), pauses, 'Europe/Berlin')).toEqual([
      { day: '2026-06-01', trackedMs: 1.5 * H, pausedMs: 0.5 * H },
      { day: '2026-06-02', trackedMs: 1.5 * H, pausedMs: 0.5 * H },
    ]);
  });

  it('an open pause runs to the end given (a live paused session up to as_of)', () => {
    const pauses = [{ pausedAt: at('2026-06-01T10:00:00Z'), resumedAt: null }];
    expect(splitByDay(at('2026-06-01T09:00:00Z'), at('2026-06-01T12:00:00Z'), pauses, 'UTC')).toEqual([
      { day: '2026-06-01', trackedMs: 1 * H, pausedMs: 2 * H },
    ]);
  });

  it('a zero-length session still has its start day', () => {
    expect(splitByDay(at('2026-06-01T09:00:00Z'), at('2026-06-01T09:00:00Z'), [], 'UTC')).toEqual([
      { day: '2026-06-01', trackedMs: 0, pausedMs: 0 },
    ]);
  });

  it('localDate reads the calendar date in the zone', () => {
    expect(localDate(at('2026-03-28T23:30:00Z'), 'Europe/Berlin')).toBe('2026-03-29');
    expect(localDate(at('2026-03-28T23:30:00Z'), 'America/New_York')).toBe('2026-03-28');
  });
});

describe('wholeWeeks (D-50: a summary by week reads whole ISO weeks from the week roll-up)', () => {
  it('finds the first Monday and the last Sunday inside the period', () => {
    expect(wholeWeeks('2025-01-01', '2025-12-31')).toEqual({ firstMonday: '2025-01-06', lastSunday: '2025-12-28' });
    expect(wholeWeeks('2026-03-23', '2026-04-05')).toEqual({ firstMonday: '2026-03-23', lastSunday: '2026-04-05' });
    expect(wholeWeeks('2026-03-24', '2026-04-05')).toEqual({ firstMonday: '2026-03-30', lastSunday: '2026-04-05' });
  });

  it('answers null when no whole week fits', () => {
    expect(wholeWeeks('2026-03-28', '2026-03-30')).toBeNull();
    expect(wholeWeeks('2026-03-24', '2026-03-30')).toBeNull();
    expect(wholeWeeks('2026-03-30', '2026-03-30')).toBeNull();
  });
});

describe("wholeHourOffsets (D-50: hour buckets cut a zone's days exactly only on whole-hour offsets)", () => {
  it('holds for whole-hour zones across DST and not for quarter- and half-hour ones', () => {
    expect(wholeHourOffsets('2025-01-01', '2025-12-31', 'Europe/Berlin')).toBe(true);
    expect(wholeHourOffsets('2025-01-01', '2025-12-31', 'America/New_York')).toBe(true);
    expect(wholeHourOffsets('2025-03-01', '2025-03-01', 'Asia/Kolkata')).toBe(false);
    expect(wholeHourOffsets('2025-03-01', '2025-03-01', 'Asia/Kathmandu')).toBe(false);
    expect(wholeHourOffsets('2025-01-01', '2025-12-31', 'Australia/Adelaide')).toBe(false);
  });
});
