import { calendarRange, isUsableZone } from './calendar-range';

const iso = (d: Date | undefined): string | undefined => d?.toISOString();

describe('calendarRange (D-29: calendar dates in the member time zone)', () => {
  it('spans whole days in the zone, to inclusive', () => {
    const r = calendarRange('2026-06-01', '2026-06-02', 'Europe/Berlin');
    expect([iso(r.from), iso(r.to)]).toEqual(['2026-05-31T22:00:00.000Z', '2026-06-02T22:00:00.000Z']);
  });

  it('gives the March DST day 23 hours and the October one 25 (Europe/Berlin)', () => {
    const spring = calendarRange('2026-03-29', '2026-03-29', 'Europe/Berlin');
    expect([iso(spring.from), iso(spring.to)]).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    const autumn = calendarRange('2026-10-25', '2026-10-25', 'Europe/Berlin');
    expect([iso(autumn.from), iso(autumn.to)]).toEqual(['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
  });

  it('starts a day whose midnight does not exist at its first instant (America/Santiago, 2026-09-06)', () => {
    const r = calendarRange('2026-09-06', undefined, 'America/Santiago');
    expect(iso(r.from)).toBe('2026-09-06T04:00:00.000Z'); // 01:00 -03, the first local time of that day
    expect(r.to).toBeUndefined();
  });

  it('has no fallback zone: an unknown or missing zone is unusable', () => {
    expect(isUsableZone(undefined)).toBe(false);
    expect(isUsableZone('Mars/Olympus')).toBe(false);
    expect(isUsableZone('Asia/Kolkata')).toBe(true);
    expect(iso(calendarRange(undefined, '2026-01-01', 'UTC').to)).toBe('2026-01-02T00:00:00.000Z');
  });
});
