import ICAL from 'ical.js';
import { decodeEvent, EventError, safeValue, tzidOf } from './ics-event';
import { cap, checkStructure, errorMessage, lineOf, parseBlock, parseSkeleton, physicalLines, rawUid } from './ics-text';
import { dateKey, instantMs, type TimeContext } from './ics-time';
import { canonicalIana, ianaZoneFor } from './time-zones';

/**
 * Reading an iCalendar (RFC 5545) feed and expanding its VEVENTs into the
 * occurrences of a time window. Pure: no I/O, no clock, and results depend
 * on nothing but the arguments.
 *
 * One odd event never costs the feed: the feed's structure
 * (BEGIN/END nesting) is checked as a whole, then each VEVENT is parsed and
 * checked on its own; a VEVENT that cannot be read is left out and reported
 * in `skipped` (UID or position, line, reason) and the others are kept.
 *
 * Real exports are read as calendar apps read them: a DATE given without
 * `VALUE=DATE`, an unquoted TZID holding a colon (`(UTC-05:00) Eastern…`),
 * a TZID missing its closing quote or closing it after the value are
 * repaired before parsing. An override of an all-day series is matched by
 * the day its RECURRENCE-ID names, whether that is a DATE or (Exchange) a
 * zoned midnight.
 *
 * Time zones resolve per feed: ical.js (2.x) looks a TZID up in the
 * VTIMEZONEs of the VCALENDAR the property belongs to, so nothing is
 * registered in the process-wide `ICAL.TimezoneService` and one feed's zones
 * never leak into another's. A TZID the feed does not define is resolved by
 * `ianaZoneFor` (IANA names, Windows zone ids and display names). Floating
 * times (no TZID, no `Z`) and TZIDs nothing resolves are read in the
 * calendar's X-WR-TIMEZONE when it names a zone, else in the member's zone.
 *
 * All-day events (DATE values) are the member's local day: they start and
 * end at midnight in the member's zone (`memberZone`, UTC by default).
 *
 * Only metadata is read: never DESCRIPTION, LOCATION (it often holds meeting
 * passcodes), ATTACH or attendee addresses — only whether there is an
 * ORGANIZER and how many ATTENDEEs (D-36).
 */

/**
 * Bounds on recurrence expansion, against hostile or runaway feeds (an
 * ical.js step costs some 30–50 µs). Daily and weekly series without COUNT
 * start their walk just before the window (whole periods ahead of DTSTART,
 * which keeps every occurrence where it was), so a series begun a decade ago
 * costs as little as one begun last week; the bounds only stop truly
 * pathological rules (FREQ=SECONDLY, a COUNT in the millions). A series
 * needing more than `perSeries` steps, or any series once the feed has spent
 * `perFeed` steps, is left out whole and reported in `skipped` — never
 * expanded partially, which would make its instances flicker.
 */
export interface ExpansionLimits {
  perSeries: number;
  perFeed: number;
}
export const DEFAULT_EXPANSION_LIMITS: Readonly<ExpansionLimits> = { perSeries: 10_000, perFeed: 250_000 };
export { MAX_SEQUENCE } from './ics-event';

export { IcsParseError } from './ics-text';

export type InstanceStatus = 'confirmed' | 'tentative' | 'cancelled';

/** One occurrence of a VEVENT. Times are RFC 3339 UTC (`toISOString()`). */
export interface CalendarInstance {
  uid: string;
  /** ISO UTC of the occurrence's original start (its RECURRENCE-ID); null for a non-recurring event. */
  recurrenceId: string | null;
  sequence: number;
  status: InstanceStatus;
  title: string | null;
  start: string;
  end: string;
  allDay: boolean;
  hasOrganizer: boolean;
  attendeeCount: number;
}

/** A VEVENT left out of the feed, and why. */
export interface SkippedEvent {
  /** Its UID when it has a readable one. */
  uid: string | null;
  /** 1-based position among the feed's VEVENTs. */
  position: number;
  /** 1-based line of the property at fault, else of its BEGIN:VEVENT. */
  line: number;
  reason: string;
}

/** How times without a zone of their own are read. */
export interface FeedOptions {
  /** The member's IANA zone: all-day events are their local days; floating times fall back to it. */
  memberZone: string;
}

/** A VEVENT, decoded and checked by `parseIcsFeed`. */
export interface IcsEvent {
  /** 1-based line of its BEGIN:VEVENT. */
  readonly line: number;
  /** 1-based position among the feed's VEVENTs. */
  readonly position: number;
  /** The UID, or for a VEVENT without one `derived:<hash of its content>` (stable across polls). */
  readonly uid: string;
  /** Epoch ms of RECURRENCE-ID; null for a master or a single event. */
  readonly recurrenceIdMs: number | null;
  /**
   * The RECURRENCE-ID's day as an all-day occurrence of the master is placed
   * (midnight in the member's zone): the key an override of an all-day
   * series is matched by, since Exchange writes its RECURRENCE-ID as a
   * DATE-TIME (`RECURRENCE-ID;TZID=W. Europe Standard Time:20260226T000000`)
   * while the series' occurrences are DATEs. null when recurrenceIdMs is.
   */
  readonly recurrenceIdDayMs: number | null;
  readonly sequence: number;
  readonly status: InstanceStatus;
  /** null when the VEVENT has no SUMMARY at all (an override then inherits the master's). */
  readonly title: string | null;
  readonly hasSummary: boolean;
  readonly startMs: number;
  readonly durationMs: number;
  readonly allDay: boolean;
  readonly hasOrganizer: boolean;
  readonly attendeeCount: number;
  /** Has an RRULE or RDATE (and no RECURRENCE-ID). */
  readonly recurring: boolean;
  /** EXDATEs: epoch ms of excluded date-times, and `YYYY-MM-DD` of excluded DATE values. */
  readonly exdates: { readonly instants: ReadonlySet<number>; readonly dates: ReadonlySet<string> };
  /** The ical.js VEVENT, kept only to expand its RRULE/RDATE. */
  readonly component: ICAL.Component;
  readonly tzid: string | null;
}

export interface IcsFeed {
  readonly prodId: string | null;
  /** The zone floating times were read in (X-WR-TIMEZONE or the member's). */
  readonly floatingZone: string;
  readonly events: readonly IcsEvent[];
  /** VEVENTs that could not be read, in feed order. */
  readonly skipped: readonly SkippedEvent[];
  /** @internal */
  readonly context: TimeContext;
}

export interface TimeWindow {
  from: Date;
  to: Date;
}

export interface ExpandedFeed {
  instances: CalendarInstance[];
  /** Series the expansion bounds left out (see ExpansionLimits). */
  skipped: SkippedEvent[];
}

/**
 * Parses a feed. Throws IcsParseError only when the whole is not one
 * well-formed VCALENDAR (not a calendar, truncated, unbalanced BEGIN/END, an
 * unreadable calendar header); a VEVENT that cannot be read is left out and
 * listed in `skipped`.
 */
export function parseIcsFeed(text: string, options: Partial<FeedOptions> = {}): IcsFeed {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = physicalLines(source);
  const blocks = checkStructure(lines);
  const calendar = parseSkeleton(lines, blocks);
  const prodId = safeValue(calendar, 'prodid');
  const memberZone = canonicalIana(options.memberZone ?? 'UTC') ?? 'UTC';
  const wrZone = safeValue(calendar, 'x-wr-timezone');
  const floating = (typeof wrZone === 'string' ? ianaZoneFor(wrZone) : null) ?? memberZone;
  const context: TimeContext = { floating, allDay: memberZone };

  const events: IcsEvent[] = [];
  const skipped: SkippedEvent[] = [];
  const derivedSeen = new Map<string, number>();
  blocks.forEach((block, index) => {
    const position = index + 1;
    const blockLines = lines.slice(block.begin - 1, block.end);
    let vevent: ICAL.Component;
    try {
      vevent = parseBlock(blockLines, calendar);
    } catch (error) {
      skipped.push({
        uid: rawUid(blockLines),
        position,
        line: lineOf(blockLines, errorMessage(error)) ?? block.begin,
        reason: cap(errorMessage(error)),
      });
      return;
    }
    try {
      events.push(decodeEvent(vevent, { line: block.begin, position, blockLines, context, derivedSeen }));
    } catch (error) {
      if (!(error instanceof EventError)) throw error;
      skipped.push({ uid: error.uid, position, line: error.line, reason: cap(error.reason) });
    }
  });
  return { prodId: typeof prodId === 'string' ? prodId : null, floatingZone: floating, events, skipped, context };
}

/** `expandFeed(feed, window, limits).instances`. */
export function expandInstances(
  feed: IcsFeed,
  window: TimeWindow,
  limits: Readonly<ExpansionLimits> = DEFAULT_EXPANSION_LIMITS,
): CalendarInstance[] {
  return expandFeed(feed, window, limits).instances;
}

/**
 * Every occurrence whose start is in [from, to), sorted by start, uid and
 * recurrenceId. EXDATE'd occurrences are absent; cancelled ones (STATUS on
 * the master or on an override) are returned with status 'cancelled'. An
 * override (a VEVENT with the master's UID and a RECURRENCE-ID) replaces the
 * occurrence it names and is returned when its own (possibly moved) start is
 * in the window; an override whose master is missing stands on its own. Only
 * the newest (highest SEQUENCE) master and override per RECURRENCE-ID count.
 * Expansion is bounded by `limits` (see ExpansionLimits).
 */
export function expandFeed(feed: IcsFeed, window: TimeWindow, limits: Readonly<ExpansionLimits> = DEFAULT_EXPANSION_LIMITS): ExpandedFeed {
  const fromMs = window.from.getTime();
  const toMs = window.to.getTime();
  const inWindow = (ms: number): boolean => ms >= fromMs && ms < toMs;
  const budget = { limits, left: limits.perFeed };
  const instances: CalendarInstance[] = [];
  const skipped: SkippedEvent[] = [];

  for (const [uid, group] of groupByUid(feed.events)) {
    const master = newest(group.filter((e) => e.recurrenceIdMs === null));
    const overrides = new Map<number, IcsEvent>();
    for (const e of group) {
      // An all-day series' occurrences are days: its overrides are matched by the day they name.
      const key = master?.allDay ? e.recurrenceIdDayMs : e.recurrenceIdMs;
      if (key === null) continue;
      const seen = overrides.get(key);
      if (!seen || e.sequence > seen.sequence) overrides.set(key, e);
    }

    if (master && !master.recurring) {
      if (inWindow(master.startMs)) instances.push(toInstance(uid, master, null, master.startMs, master.status));
      continue;
    }

    if (master) {
      const starts = occurrences(master, fromMs, toMs, budget, feed.context);
      if (typeof starts === 'string') {
        skipped.push({ uid: master.uid, position: master.position, line: master.line, reason: starts });
        continue;
      }
      for (const occurrenceMs of starts) {
        if (overrides.has(occurrenceMs) || !inWindow(occurrenceMs)) continue;
        instances.push(toInstance(uid, master, occurrenceMs, occurrenceMs, master.status));
      }
    }
    for (const [recurrenceIdMs, override] of overrides) {
      if (master && master.exdates.instants.has(recurrenceIdMs)) continue;
      if (!inWindow(override.startMs)) continue;
      const status = master?.status === 'cancelled' ? 'cancelled' : override.status;
      const inherited = !override.hasSummary && master ? { ...override, title: master.title } : override;
      instances.push(toInstance(uid, inherited, recurrenceIdMs, override.startMs, status));
    }
  }

  instances.sort((a, b) => compare(a.start, b.start) || compare(a.uid, b.uid) || compare(a.recurrenceId ?? '', b.recurrenceId ?? ''));
  return { instances, skipped };
}

// ---------------------------------------------------------------- expansion

const DAY_MS = 86_400_000;

/**
 * The original starts (epoch ms) of a recurring master's occurrences before
 * `toMs`, ascending, without EXDATEs — or, when the bounds are exceeded, the
 * reason the series is left out. RRULEs are walked with ical.js's
 * RecurIterator (from a start jumped close to `fromMs` when the rule allows,
 * see `walkStart`), RDATEs added, DTSTART always included (RFC 5545), and
 * EXDATEs applied here, by instant and by date.
 */
function occurrences(
  master: IcsEvent,
  fromMs: number,
  toMs: number,
  budget: { limits: Readonly<ExpansionLimits>; left: number },
  context: TimeContext,
): number[] | string {
  const result: number[] = [];
  const seen = new Set<number>();
  const add = (ms: number, time: ICAL.Time | null): void => {
    if (seen.has(ms) || ms >= toMs) return;
    seen.add(ms);
    if (master.exdates.instants.has(ms)) return;
    if (time && !time.isDate && master.exdates.dates.has(dateKey(time))) return;
    result.push(ms);
  };

  const dtstart = master.component.getFirstPropertyValue('dtstart');
  if (!(dtstart instanceof ICAL.Time)) return result;
  add(master.startMs, dtstart);

  for (const prop of master.component.getAllProperties('rdate')) {
    const tzid = tzidOf(prop) ?? master.tzid;
    for (const value of prop.getValues() as unknown[]) {
      const time: unknown = value instanceof ICAL.Period ? value.start : value;
      if (time instanceof ICAL.Time) add(instantMs(time, tzid, context), time);
    }
  }

  let steps = 0;
  for (const prop of master.component.getAllProperties('rrule')) {
    const rule = prop.getFirstValue();
    if (!(rule instanceof ICAL.Recur)) continue;
    const iterator = rule.iterator(walkStart(dtstart, rule, master.startMs, fromMs));
    for (;;) {
      if (++steps > budget.limits.perSeries) {
        return `the recurrence needs more than ${budget.limits.perSeries} steps to reach the window; left out`;
      }
      if (--budget.left < 0) return `the feed needs more than ${budget.limits.perFeed} recurrence steps in all; this series is left out`;
      let next: ICAL.Time | null;
      try {
        next = iterator.next();
      } catch {
        // ical.js gives up on a rule it cannot satisfy ("max tries"): the series ends here.
        break;
      }
      if (!next) break;
      const ms = instantMs(next, master.tzid, context);
      if (ms >= toMs) break;
      add(ms, next);
    }
  }
  return result.sort((a, b) => a - b);
}

/**
 * Where to start walking a rule: DTSTART itself, or — for a DAILY or WEEKLY
 * rule without COUNT whose DTSTART is far before the window — DTSTART moved
 * ahead by a whole number of periods (INTERVAL days or weeks, in wall-clock
 * time), to at least two periods before `fromMs`. The rule's candidates are
 * DTSTART + n periods, so the moved start lands on the same candidates and
 * every occurrence from there on is unchanged; the moved start itself may be
 * yielded although the rule would not (RFC 5545 counts DTSTART as an
 * instance), but it lies before the window, where nothing is used. COUNT
 * counts from the real DTSTART, so a rule with COUNT is walked from there.
 */
function walkStart(dtstart: ICAL.Time, rule: ICAL.Recur, startMs: number, fromMs: number): ICAL.Time {
  if (rule.count) return dtstart;
  const interval = Math.max(1, rule.interval || 1);
  const periodDays = rule.freq === 'DAILY' ? interval : rule.freq === 'WEEKLY' ? 7 * interval : 0;
  if (periodDays === 0) return dtstart;
  const periodMs = periodDays * DAY_MS;
  const periods = Math.floor((fromMs - 2 * periodMs - startMs) / periodMs);
  if (periods <= 0) return dtstart;
  const moved = dtstart.clone();
  moved.adjust(periods * periodDays, 0, 0, 0);
  return moved;
}

function toInstance(
  uid: string,
  event: IcsEvent,
  recurrenceIdMs: number | null,
  startMs: number,
  status: InstanceStatus,
): CalendarInstance {
  return {
    uid,
    recurrenceId: recurrenceIdMs === null ? null : new Date(recurrenceIdMs).toISOString(),
    sequence: event.sequence,
    status,
    title: event.title,
    start: new Date(startMs).toISOString(),
    end: new Date(startMs + event.durationMs).toISOString(),
    allDay: event.allDay,
    hasOrganizer: event.hasOrganizer,
    attendeeCount: event.attendeeCount,
  };
}

function groupByUid(events: readonly IcsEvent[]): Map<string, IcsEvent[]> {
  const groups = new Map<string, IcsEvent[]>();
  for (const event of events) {
    const group = groups.get(event.uid);
    if (group) group.push(event);
    else groups.set(event.uid, [event]);
  }
  return groups;
}

/** The highest SEQUENCE wins; on a tie, the first in the feed. */
function newest(events: IcsEvent[]): IcsEvent | undefined {
  return events.reduce<IcsEvent | undefined>((best, e) => (!best || e.sequence > best.sequence ? e : best), undefined);
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
