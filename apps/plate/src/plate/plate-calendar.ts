import { DateTime } from 'luxon';
import { WEEKDAYS, type WorkingHours } from '@worktrack/contracts';

/** Today's calendar date in an IANA time zone (D-33). */
export const todayIn = (timezone: string, now: Date = new Date()): string => DateTime.fromJSDate(now).setZone(timezone).toISODate() ?? '';

/** The calendar day after `date` (YYYY-MM-DD). */
export const nextDay = (date: string): string => DateTime.fromISO(date, { zone: 'utc' }).plus({ days: 1 }).toISODate() ?? '';

/** A working day is a weekday with working hours (D-33). */
export function isWorkingDay(date: string, hours: WorkingHours): boolean {
  const weekday = WEEKDAYS[DateTime.fromISO(date, { zone: 'utc' }).weekday - 1];
  return hours[weekday].length > 0;
}

/** Whether `date` is a real calendar date (the pattern allows 2026-02-31). */
export const isRealDate = (date: string): boolean => DateTime.fromISO(date, { zone: 'utc' }).isValid;
