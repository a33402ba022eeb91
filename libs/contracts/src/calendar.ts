import { ValidateBy, type ValidationOptions } from 'class-validator';

/** D-3: an RFC 3339 date-time with an explicit offset (`Z` or `±hh:mm`). */
export const RFC3339_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** A calendar date, `YYYY-MM-DD` (months 01–12, days 01–31; the calendar check is the consumer's). */
export const CALENDAR_DATE_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/**
 * The instants and dates the API accepts: one day inside years 0001–9999 at
 * each end, so that a time-zone shift or a day of arithmetic on an accepted
 * value still has a four-digit year (what Postgres and `Date#toISOString`
 * round-trip). Anything outside is a 400, never a database error.
 */
export const EARLIEST_DATE = '0001-01-02';
export const LATEST_DATE = '9999-12-30';

/** Greatest offset from UTC in use (RFC 3339 allows ±23:59; no zone is beyond ±14:00). */
const MAX_OFFSET_MINUTES = 14 * 60;

const EARLIEST_MS = utcMs(1, 1, 2);
const LATEST_MS = utcMs(9999, 12, 30, 23, 59, 59, 999);

const DATE_TIME_PARTS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))$/;
const DATE_PARTS = /^(\d{4})-(\d{2})-(\d{2})$/;

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (y: number, m: number): number => (m === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[m - 1]);

/** `Date.UTC` for any year (it maps 0–99 to 1900–1999). */
function utcMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  return date.getTime();
}

/** Why `text` is not a calendar date the API accepts (`YYYY-MM-DD`, a real day, in range), or undefined. */
export function calendarDateIssue(text: string): string | undefined {
  const m = DATE_PARTS.exec(text);
  if (!m) return 'must be a calendar date YYYY-MM-DD';
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) return 'must be a day that exists in the calendar';
  if (text < EARLIEST_DATE || text > LATEST_DATE) return `must be between ${EARLIEST_DATE} and ${LATEST_DATE}`;
  return undefined;
}

/** Why `text` is not an RFC 3339 date-time the API accepts (with an offset, a real instant, in range), or undefined. */
export function dateTimeIssue(text: string): string | undefined {
  const m = DATE_TIME_PARTS.exec(text);
  if (!m) return 'must be an RFC 3339 date-time with an offset';
  const [y, mo, d, h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) return 'must be a day that exists in the calendar';
  if (h > 23 || mi > 59 || s > 59) return 'must be a time of day from 00:00:00 to 23:59:59';
  let offsetMinutes = 0;
  if (m[8] !== 'Z') {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (om > 59 || oh * 60 + om > MAX_OFFSET_MINUTES) return 'must have an offset between -14:00 and +14:00';
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  // Whatever the offset (at most 14 hours), an instant of the years 0002–9998 is in range: only the first and last year need it.
  if (y > 1 && y < 9999) return undefined;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const instant = utcMs(y, mo, d, h, mi, s, ms) - offsetMinutes * 60_000;
  if (instant < EARLIEST_MS || instant > LATEST_MS) return `must be between ${EARLIEST_DATE} and ${LATEST_DATE} (UTC)`;
  return undefined;
}

export const isCalendarDate = (value: unknown): value is string => typeof value === 'string' && calendarDateIssue(value) === undefined;
export const isDateTime = (value: unknown): value is string => typeof value === 'string' && dateTimeIssue(value) === undefined;

/** A calendar date the API accepts (see `calendarDateIssue`); the message says what is wrong. */
export const IsCalendarDate = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isCalendarDate',
      validator: {
        validate: isCalendarDate,
        defaultMessage: (args) =>
          `${args?.property ?? 'value'} ${typeof args?.value === 'string' ? calendarDateIssue(args.value) : 'must be a calendar date YYYY-MM-DD'}`,
      },
    },
    options,
  );

/** An RFC 3339 date-time the API accepts (see `dateTimeIssue`); the message says what is wrong. */
export const IsDateTime = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isDateTime',
      validator: {
        validate: isDateTime,
        defaultMessage: (args) =>
          `${args?.property ?? 'value'} ${typeof args?.value === 'string' ? dateTimeIssue(args.value) : 'must be an RFC 3339 date-time with an offset'}`,
      },
    },
    options,
  );
