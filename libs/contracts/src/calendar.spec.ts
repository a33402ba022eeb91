import { calendarDateIssue, dateTimeIssue } from './calendar';

describe('dates the API accepts', () => {
  it.each([
    '2026-05-01T10:00:00Z',
    '2026-05-01T10:00:00.123456+02:00',
    '2024-02-29T23:59:59-14:00',
    '0001-01-02T00:00:00Z',
    '9999-12-30T23:59:59.999Z',
    // The years inside the range whatever the offset (the check skips the instant for them).
    '0002-01-01T00:00:00+14:00',
    '9998-12-31T23:59:59.999-14:00',
  ])('accepts the date-time %s', (value) => expect(dateTimeIssue(value)).toBeUndefined());

  it.each([
    ['2026-02-30T10:00:00Z', 'exists in the calendar'],
    ['2025-02-29T10:00:00Z', 'exists in the calendar'],
    ['2026-13-01T10:00:00Z', 'exists in the calendar'],
    ['2026-05-01T24:00:00Z', 'time of day'],
    ['2026-05-01T10:60:00Z', 'time of day'],
    ['2026-05-01T10:00:60Z', 'time of day'],
    ['2026-05-01T10:00:00+14:01', 'offset'],
    ['2026-05-01T10:00:00-15:00', 'offset'],
    ['2026-05-01T10:00:00+02:60', 'offset'],
    ['0000-01-01T00:00:00Z', 'between'],
    ['0001-01-01T10:00:00+14:00', 'between'],
    ['9999-12-31T23:59:59Z', 'between'],
    ['9999-12-30T23:00:00-14:00', 'between'],
    ['0001-01-01T23:59:59.999Z', 'between'],
    ['0002-02-30T00:00:00Z', 'exists in the calendar'],
    ['9998-12-31T23:59:59+14:30', 'offset'],
    ['2026-05-01 10:00:00Z', 'RFC 3339'],
    ['2026-05-01T10:00:00', 'RFC 3339'],
  ])('refuses the date-time %s (%s)', (value, why) => expect(dateTimeIssue(value)).toContain(why));

  it.each(['2026-05-01', '2024-02-29', '0001-01-02', '9999-12-30'])('accepts the date %s', (value) =>
    expect(calendarDateIssue(value)).toBeUndefined(),
  );

  it.each([
    ['2026-02-30', 'exists'],
    ['2100-02-29', 'exists'],
    ['0000-06-01', 'between'],
    ['9999-12-31', 'between'],
    ['0001-01-01', 'between'],
    ['2026-5-1', 'YYYY-MM-DD'],
  ])('refuses the date %s (%s)', (value, why) => expect(calendarDateIssue(value)).toContain(why));
});
