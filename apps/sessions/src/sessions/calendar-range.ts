import { DateTime, IANAZone } from 'luxon';

export interface InstantRange {
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
}

/**
 * D-29: `from`/`to` are inclusive calendar dates in `zone`; the range of
 * instants is [start of `from`, start of the day after `to`). Days are
 * measured in the zone, so a DST day is 23 or 25 hours long, and a day whose
 * midnight does not exist starts at its first existing instant.
 */
export function calendarRange(from: string | undefined, to: string | undefined, zone: string): InstantRange {
  const startOf = (date: string): Date => DateTime.fromISO(date, { zone }).startOf('day').toJSDate();
  const dayAfter = (date: string): Date => DateTime.fromISO(date, { zone }).plus({ days: 1 }).startOf('day').toJSDate();
  return { ...(from ? { from: startOf(from) } : {}), ...(to ? { to: dayAfter(to) } : {}) };
}

/** A zone calendar dates can be read in; there is no fallback (never a UTC guess). */
export const isUsableZone = (zone: string | undefined): zone is string => zone !== undefined && IANAZone.isValidZone(zone);
