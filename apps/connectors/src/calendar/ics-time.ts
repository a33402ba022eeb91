import ICAL from 'ical.js';
import { ianaZoneFor } from './time-zones';

/** The zones a parsed feed reads times in. */
export interface TimeContext {
  /** Floating times and TZIDs nothing resolves: X-WR-TIMEZONE, else the member's zone. */
  floating: string;
  /** DATE values: the member's zone. */
  allDay: string;
}

/**
 * Epoch ms of an ical.js time. DATE values: midnight of that day in the
 * member's zone. Zoned by the feed's VTIMEZONE or UTC: ical.js knows.
 * Otherwise (floating, or a TZID the feed does not define): the TZID as
 * `ianaZoneFor` resolves it, else the feed's floating zone.
 */
export function instantMs(time: ICAL.Time, tzid: string | null, context: TimeContext): number {
  if (time.isDate) return zonedToUtc(time, context.allDay) ?? Date.UTC(time.year, time.month - 1, time.day);
  if (time.zone === ICAL.Timezone.localTimezone || !time.zone) {
    const zone = (tzid !== null ? ianaZoneFor(tzid) : null) ?? context.floating;
    const zoned = zonedToUtc(time, zone);
    if (zoned !== null) return zoned;
  }
  return time.toUnixTime() * 1000;
}

/**
 * Midnight, in the member's zone, of the day a time names: its own date for
 * a DATE or a zoned or floating wall-clock time; for a UTC time (no wall
 * clock of its own), its date in the calendar's floating zone.
 */
export function dayStartMs(time: ICAL.Time, ms: number, context: TimeContext): number | null {
  let day = { year: time.year, month: time.month, day: time.day };
  if (!time.isDate && time.zone === ICAL.Timezone.utcTimezone) {
    const formatter = formatterFor(context.floating);
    if (!formatter) return null;
    const part = (type: Intl.DateTimeFormatPartTypes): number =>
      Number(formatter.formatToParts(new Date(ms)).find((p) => p.type === type)?.value ?? NaN);
    day = { year: part('year'), month: part('month'), day: part('day') };
  }
  const midnight = ICAL.Time.fromData({ ...day, isDate: true });
  const result = zonedToUtc(midnight, context.allDay) ?? Date.UTC(day.year, day.month - 1, day.day);
  return Number.isFinite(result) ? result : null;
}

/** Formatters of the IANA zones seen so far: a cache only (results do not depend on it), bounded against feeds inventing TZIDs. */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_CACHED_FORMATTERS = 1_000;

function formatterFor(tzid: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(tzid);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: tzid,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      return null; // not an IANA zone
    }
    if (formatters.size >= MAX_CACHED_FORMATTERS) formatters.clear();
    formatters.set(tzid, formatter);
  }
  return formatter;
}

/** The UTC instant of a wall-clock time (midnight for a DATE) in an IANA zone; null if the zone is unknown. */
function zonedToUtc(time: ICAL.Time, tzid: string): number | null {
  if (tzid === 'UTC') return Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  const formatter = formatterFor(tzid);
  if (!formatter) return null;
  const offsetAt = (ms: number): number => {
    const part = (type: Intl.DateTimeFormatPartTypes): number =>
      Number(formatter.formatToParts(new Date(ms)).find((p) => p.type === type)?.value ?? NaN);
    const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
    return wall - Math.floor(ms / 1000) * 1000;
  };
  const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  const first = wall - offsetAt(wall);
  const second = wall - offsetAt(first);
  return Number.isFinite(second) ? second : null;
}

export function dateKey(time: ICAL.Time): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}`;
}
