import type { Pause } from '../projection/pauses';

const dateFormats = new Map<string, Intl.DateTimeFormat>();
const instantFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * A formatter for `tz`, built once per zone and kept in `held`: building one costs about a hundred times a format, and
 * a report formats for a handful of zones. An unknown zone throws as `Intl` does, and is not kept.
 */
function formatter(
  held: Map<string, Intl.DateTimeFormat>,
  tz: string,
  locale: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  let f = held.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { ...options, timeZone: tz });
    // Zones are a bounded set (IANA's names, checked before a report is asked); the bound guards a caller that is not.
    if (held.size < 1_000) held.set(tz, f);
  }
  return f;
}

/** A calendar date `YYYY-MM-DD` of the instant `at` in zone `tz`. */
export function localDate(at: Date, tz: string): string {
  const parts = formatter(dateFormats, tz, 'en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** The offset of `tz` from UTC at `at`, in milliseconds. */
function offsetMs(at: Date, tz: string): number {
  const parts = formatter(instantFormats, tz, 'en-US', {
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const n = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/** The instant local midnight starts the date `day` in `tz` (a DST gap at midnight moves it to the first valid instant). */
export function startOfDay(day: string, tz: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  let at = guess - offsetMs(new Date(guess), tz);
  at = guess - offsetMs(new Date(at), tz);
  return new Date(at);
}

/** The calendar date after `day`. */
export function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

export interface DayPiece {
  day: string;
  trackedMs: number;
  pausedMs: number;
}

const overlap = (a0: number, a1: number, b0: number, b1: number): number => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

/**
 * D-50: a session's time split at each midnight of `tz` — the active time
 * (pauses excluded) and the paused time on each day it covers, from
 * `startedAt` to `end` (its close, or the report's `as_of` while live).
 * Days of 23 or 25 hours (DST) are cut at their real midnights.
 */
export function splitByDay(startedAt: Date, end: Date, pauses: Pause[], tz: string): DayPiece[] {
  const s = startedAt.getTime();
  const e = Math.max(s, end.getTime());
  const pieces: DayPiece[] = [];
  let day = localDate(startedAt, tz);
  for (;;) {
    const b0 = startOfDay(day, tz).getTime();
    const following = nextDay(day);
    const b1 = startOfDay(following, tz).getTime();
    if (b0 >= e && pieces.length > 0) break;
    const total = overlap(s, e, b0, b1);
    let paused = 0;
    for (const p of pauses) paused += overlap(Math.max(s, p.pausedAt.getTime()), Math.min(e, (p.resumedAt ?? end).getTime()), b0, b1);
    paused = Math.min(paused, total);
    pieces.push({ day, trackedMs: total - paused, pausedMs: paused });
    if (b1 >= e) break;
    day = following;
  }
  return pieces;
}

/** The whole ISO weeks within `from` … `to`: the first Monday and the last Sunday; null when none fits. */
export function wholeWeeks(from: string, to: string): { firstMonday: string; lastSunday: string } | null {
  const day = (d: string): Date => new Date(`${d}T00:00:00Z`);
  const isoDow = (d: Date): number => ((d.getUTCDay() + 6) % 7) + 1;
  const first = day(from);
  first.setUTCDate(first.getUTCDate() + ((8 - isoDow(first)) % 7));
  const last = day(to);
  last.setUTCDate(last.getUTCDate() - (isoDow(last) % 7));
  if (last.getTime() - first.getTime() < 6 * 86_400_000) return null;
  return { firstMonday: first.toISOString().slice(0, 10), lastSunday: last.toISOString().slice(0, 10) };
}

/**
 * Whether every offset of `tz` from UTC during `from` … `to` is a whole
 * number of hours (its midnights fall on UTC hours): then hour buckets cut
 * its days exactly. Offsets are sampled twice a day, finer than any change.
 */
export function wholeHourOffsets(from: string, to: string, tz: string): boolean {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', minute: '2-digit' });
  const end = new Date(`${to}T00:00:00Z`).getTime() + 2 * 86_400_000;
  const start = new Date(`${from}T00:00:00Z`).getTime() - 86_400_000;
  // The local minute of an instant on a whole UTC hour is the offset's minutes (every IANA offset is a multiple of 15 minutes).
  for (let at = start; at <= end; at += 43_200_000) {
    if (Number(format.formatToParts(at).find((p) => p.type === 'minute')?.value ?? 0) !== 0) return false;
  }
  return true;
}
