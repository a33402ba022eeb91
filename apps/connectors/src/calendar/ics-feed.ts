import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
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
/** The largest SEQUENCE taken as given; larger or non-integer values are clamped into [0, this]. */
export const MAX_SEQUENCE = 2_147_483_647;

/**
 * The feed as a whole is not a usable VCALENDAR. `line` is the 1-based
 * physical line when it is known. The message never quotes the feed's
 * content: it is shown on the connector, and echoing what a URL answered
 * would let a feed URL probe internal services.
 */
export class IcsParseError extends Error {
  override readonly name = 'IcsParseError';

  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(line === null ? message : `line ${line}: ${message}`);
  }
}

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

/** The zones a parsed feed reads times in. */
interface TimeContext {
  /** Floating times and TZIDs nothing resolves: X-WR-TIMEZONE, else the member's zone. */
  floating: string;
  /** DATE values: the member's zone. */
  allDay: string;
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

// ---------------------------------------------------------------- decoding

/** One VEVENT could not be read: it is skipped, the feed is not. */
class EventError extends Error {
  constructor(
    readonly uid: string | null,
    readonly line: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

interface DecodeContext {
  line: number;
  position: number;
  blockLines: PhysicalLine[];
  context: TimeContext;
  /** How many UID-less VEVENTs with the same content came before (to keep derived ids distinct). */
  derivedSeen: Map<string, number>;
}

function decodeEvent(vevent: ICAL.Component, at: DecodeContext): IcsEvent {
  const { line, context } = at;
  const uidValue = safeValue(vevent, 'uid');
  const givenUid = typeof uidValue === 'string' ? uidValue.trim() : '';
  const label = givenUid === '' ? null : givenUid;
  /** Throws, naming the line of the property at fault (else of its BEGIN:VEVENT). */
  const fail = (name: string, what: string, error?: unknown): never => {
    const cause = error === undefined ? '' : `: ${errorMessage(error)}`;
    throw new EventError(label, name === '' ? line : propertyLine(at.blockLines, line, name), `${what}${cause}`);
  };
  const read = (name: string): unknown => {
    try {
      return vevent.getFirstPropertyValue(name);
    } catch (error) {
      return fail(name, `invalid ${name.toUpperCase()}`, error);
    }
  };

  const dtstart = read('dtstart');
  if (!(dtstart instanceof ICAL.Time)) return fail('', 'no DTSTART');
  const tzid = tzidOf(vevent.getFirstProperty('dtstart'));
  const startMs = instantMs(dtstart, tzid, context);

  let endMs = startMs;
  const dtend = read('dtend');
  const duration = read('duration');
  if (dtend instanceof ICAL.Time) {
    endMs = instantMs(dtend, tzidOf(vevent.getFirstProperty('dtend')) ?? (dtend.isDate ? null : tzid), context);
  } else if (duration instanceof ICAL.Duration) {
    endMs = startMs + duration.toSeconds() * 1000;
  } else if (dtstart.isDate) {
    const next = dtstart.clone();
    next.adjust(1, 0, 0, 0);
    endMs = instantMs(next, tzid, context);
  }
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs)) return fail('dtstart', 'DTSTART/DTEND out of range');

  let recurrenceIdMs: number | null = null;
  let recurrenceIdDayMs: number | null = null;
  const recurrenceId = read('recurrence-id');
  if (recurrenceId !== null) {
    if (!(recurrenceId instanceof ICAL.Time)) return fail('recurrence-id', 'invalid RECURRENCE-ID');
    recurrenceIdMs = instantMs(recurrenceId, tzidOf(vevent.getFirstProperty('recurrence-id')) ?? tzid, context);
    recurrenceIdDayMs = dayStartMs(recurrenceId, recurrenceIdMs, context);
    if (!Number.isFinite(recurrenceIdMs) || recurrenceIdDayMs === null) return fail('recurrence-id', 'RECURRENCE-ID out of range');
  }

  const instants = new Set<number>();
  const dates = new Set<string>();
  for (const prop of vevent.getAllProperties('exdate')) {
    let values: unknown[];
    try {
      values = prop.getValues();
    } catch (error) {
      return fail('exdate', 'invalid EXDATE', error);
    }
    for (const value of values) {
      if (!(value instanceof ICAL.Time)) return fail('exdate', 'invalid EXDATE');
      if (value.isDate) dates.add(dateKey(value));
      instants.add(instantMs(value, tzidOf(prop) ?? (value.isDate ? null : tzid), context));
    }
  }

  const recurring = recurrenceIdMs === null && (vevent.hasProperty('rrule') || vevent.hasProperty('rdate'));
  if (recurring) {
    try {
      for (const prop of vevent.getAllProperties('rdate')) prop.getValues();
      for (const prop of vevent.getAllProperties('rrule')) {
        const rule = prop.getFirstValue();
        if (rule instanceof ICAL.Recur) rule.iterator(dtstart).next();
      }
    } catch (error) {
      return fail(vevent.hasProperty('rrule') ? 'rrule' : 'rdate', 'invalid RRULE/RDATE', error);
    }
  }

  const summary = read('summary');
  const title = typeof summary === 'string' ? summary.replace(/\s+/g, ' ').trim() : '';
  const status = read('status');
  return {
    line,
    position: at.position,
    uid: label ?? derivedUid(at),
    recurrenceIdMs,
    recurrenceIdDayMs,
    sequence: clampSequence(read('sequence')),
    status: status === null ? 'confirmed' : toStatus(status),
    title: title === '' ? null : title,
    hasSummary: vevent.hasProperty('summary'),
    startMs,
    durationMs: Math.max(0, endMs - startMs),
    allDay: dtstart.isDate,
    hasOrganizer: vevent.hasProperty('organizer'),
    attendeeCount: vevent.getAllProperties('attendee').length,
    recurring,
    exdates: { instants, dates },
    component: vevent,
    tzid,
  };
}

/** Properties that change on every export without the event changing; left out of a derived id. */
const VOLATILE = /^(DTSTAMP|LAST-MODIFIED|CREATED|SEQUENCE|X-[A-Z0-9-]*STAMP[A-Z0-9-]*)[;:]/i;

/**
 * A stable id for a VEVENT without UID: a hash of its content lines (less
 * timestamps that change on every export), plus an ordinal when identical
 * UID-less VEVENTs repeat — the same feed gives the same ids on every poll.
 */
function derivedUid(at: DecodeContext): string {
  const content = unfold(at.blockLines)
    .filter((l) => !VOLATILE.test(l))
    .join('\n');
  const hash = createHash('sha256').update(content, 'utf8').digest('hex').slice(0, 32);
  const ordinal = at.derivedSeen.get(hash) ?? 0;
  at.derivedSeen.set(hash, ordinal + 1);
  return ordinal === 0 ? `derived:${hash}` : `derived:${hash}-${ordinal}`;
}

// ---------------------------------------------------------------- values

function toStatus(value: unknown): InstanceStatus {
  const status = typeof value === 'string' ? value.trim().toUpperCase() : '';
  if (status === 'CANCELLED') return 'cancelled';
  if (status === 'TENTATIVE') return 'tentative';
  return 'confirmed';
}

function clampSequence(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 0;
  return Math.min(MAX_SEQUENCE, Math.max(0, Math.trunc(value)));
}

function tzidOf(prop: ICAL.Property | null): string | null {
  const tzid = prop?.getFirstParameter('tzid');
  return typeof tzid === 'string' && tzid !== '' ? tzid : null;
}

function safeValue(component: ICAL.Component, name: string): unknown {
  try {
    return component.getFirstPropertyValue(name);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- time

/**
 * Epoch ms of an ical.js time. DATE values: midnight of that day in the
 * member's zone. Zoned by the feed's VTIMEZONE or UTC: ical.js knows.
 * Otherwise (floating, or a TZID the feed does not define): the TZID as
 * `ianaZoneFor` resolves it, else the feed's floating zone.
 */
function instantMs(time: ICAL.Time, tzid: string | null, context: TimeContext): number {
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
function dayStartMs(time: ICAL.Time, ms: number, context: TimeContext): number | null {
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

function dateKey(time: ICAL.Time): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}`;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------- structure

interface PhysicalLine {
  number: number;
  text: string;
}

/** A top-level VEVENT: the lines of its BEGIN and END (1-based, inclusive). */
interface Block {
  begin: number;
  end: number;
}

function physicalLines(text: string): PhysicalLine[] {
  return text.split(/\r\n|\n|\r/).map((line, index) => ({ number: index + 1, text: line }));
}

/**
 * Checks the BEGIN/END nesting ical.js only half-checks, with line numbers:
 * one VCALENDAR, every component closed by its own END, nothing after it.
 * Returns each top-level VEVENT's lines, in order.
 */
function checkStructure(lines: PhysicalLine[]): Block[] {
  const stack: Array<{ name: string; line: number }> = [];
  const blocks: Block[] = [];
  let seenCalendar = false;
  for (const { number, text } of lines) {
    if (text.trim() === '' || text.startsWith(' ') || text.startsWith('\t')) continue;
    const match = /^(BEGIN|END):(.*)$/i.exec(text.trimEnd());
    const keyword = match?.[1]?.toUpperCase();
    const name = match?.[2]?.trim().toUpperCase() ?? '';
    if (stack.length === 0) {
      if (seenCalendar) throw new IcsParseError('unexpected content after END:VCALENDAR', number);
      if (keyword !== 'BEGIN' || name !== 'VCALENDAR') {
        throw new IcsParseError('not an iCalendar feed: it does not start with BEGIN:VCALENDAR', number);
      }
    }
    if (keyword === 'BEGIN') {
      if (name === 'VEVENT' && stack.length === 1) blocks.push({ begin: number, end: number });
      stack.push({ name, line: number });
      seenCalendar = true;
    } else if (keyword === 'END') {
      const open = stack.pop();
      if (!open) throw new IcsParseError(`END:${safeName(name)} without a BEGIN`, number);
      if (open.name !== name) {
        throw new IcsParseError(`END:${safeName(name)} does not close BEGIN:${safeName(open.name)} of line ${open.line}`, number);
      }
      if (name === 'VEVENT' && stack.length === 1) {
        const last = blocks.at(-1);
        if (last) last.end = number;
      }
    }
  }
  if (!seenCalendar) throw new IcsParseError('not an iCalendar feed: the feed is empty');
  const open = stack.at(-1);
  if (open) {
    const last = lines.findLast((l) => l.text.trim() !== '')?.number ?? lines.length;
    throw new IcsParseError(`truncated feed: it ends inside BEGIN:${safeName(open.name)} of line ${open.line}`, last);
  }
  return blocks;
}

/** A component name as an error may show it: iCalendar's own names only, never arbitrary content. */
function safeName(name: string): string {
  return /^[A-Z][A-Z0-9-]{0,30}$/.test(name) ? name : '(unknown component)';
}

/**
 * The VCALENDAR without its VEVENTs: its properties and VTIMEZONEs, which
 * each VEVENT is attached to. If the header cannot be read as a whole, each
 * VTIMEZONE is tried on its own and unreadable ones are dropped (their TZIDs
 * then resolve by name); a header beyond that is refused.
 */
function parseSkeleton(lines: PhysicalLine[], blocks: Block[]): ICAL.Component {
  const inBlock = new Set<number>();
  for (const b of blocks) for (let n = b.begin; n <= b.end; n++) inBlock.add(n);
  const skeleton = lines.filter((l) => !inBlock.has(l.number));
  try {
    const jcal: unknown = ICAL.parse(repair(unfold(skeleton)).join('\r\n'));
    if (Array.isArray(jcal) && jcal[0] === 'vcalendar') return new ICAL.Component(jcal as [string, unknown[], unknown[]]);
  } catch {
    // fall through to the per-VTIMEZONE attempt
  }
  const calendar = new ICAL.Component('vcalendar');
  const logical = repair(unfold(skeleton));
  const wr = logical.find((l) => /^X-WR-TIMEZONE[;:]/i.test(l));
  if (wr) {
    try {
      calendar.addProperty(ICAL.Property.fromString(wr));
    } catch {
      // an unreadable X-WR-TIMEZONE is ignored
    }
  }
  let zone: string[] | null = null;
  for (const line of logical) {
    if (/^BEGIN:VTIMEZONE$/i.test(line.trim())) zone = [];
    if (zone) zone.push(line);
    if (zone && /^END:VTIMEZONE$/i.test(line.trim())) {
      try {
        const jcal: unknown = ICAL.parse(zone.join('\r\n'));
        if (Array.isArray(jcal) && jcal[0] === 'vtimezone')
          calendar.addSubcomponent(new ICAL.Component(jcal as [string, unknown[], unknown[]]));
      } catch {
        // dropped: its TZID resolves by name
      }
      zone = null;
    }
  }
  return calendar;
}

/** One VEVENT's lines, repaired and parsed, attached to the calendar (for its VTIMEZONEs). */
function parseBlock(blockLines: PhysicalLine[], calendar: ICAL.Component): ICAL.Component {
  const jcal: unknown = ICAL.parse(repair(unfold(blockLines)).join('\r\n'));
  if (!Array.isArray(jcal) || jcal[0] !== 'vevent') throw new Error('not a single VEVENT');
  return new ICAL.Component(jcal as [string, unknown[], unknown[]], calendar);
}

/** RFC 5545 unfolding: a line starting with a space or tab continues the previous one. */
function unfold(lines: PhysicalLine[]): string[] {
  const out: string[] = [];
  for (const { text } of lines) {
    if ((text.startsWith(' ') || text.startsWith('\t')) && out.length > 0) out[out.length - 1] += text.slice(1);
    else if (text.trim() !== '') out.push(text);
  }
  return out;
}

const DATE_VALUED = /^(DTSTART|DTEND|DUE|RECURRENCE-ID|EXDATE|RDATE)((?:;[^:]*)?):(\d{8}(?:,\d{8})*)\s*$/i;
/** `;TZID=(UTC-05:00) Eastern Time (US & Canada):2026…` — an unquoted TZID holding a colon. */
const UNQUOTED_DISPLAY_TZID = /;TZID=(\((?:UTC|GMT)[^)]*\)[^;:"]*)(?=[;:])/i;
/** `;TZID="W. Europe Standard Time:2026…` — an opening quote never closed before the value. */
const UNCLOSED_TZID = /;TZID="([^";:]*)(?=[;:])/i;
/** `;TZID="W. Europe Standard Time:20200609T090000"` — Exchange's quote closing after the value (the last colon starts it). */
const QUOTE_AROUND_VALUE_TZID = /;TZID="([^"]*):([^":]*)"\s*$/i;
/** `;TZID='Europe/Berlin'` — single quotes are not iCalendar quoting. */
const SINGLE_QUOTED_TZID = /;TZID='([^']*)'/i;

/**
 * Repairs what real exporters get wrong, line by line, before ical.js reads
 * it: DATE values without `VALUE=DATE` (ical.js would read them as broken
 * DATE-TIMEs) and TZID parameters quoted wrongly or not at all.
 */
function repair(lines: string[]): string[] {
  return lines.map((line) => {
    let fixed = line;
    if (QUOTE_AROUND_VALUE_TZID.test(fixed))
      fixed = fixed.replace(QUOTE_AROUND_VALUE_TZID, (_m, tz: string, value: string) => `;TZID="${tz}":${value}`);
    if (SINGLE_QUOTED_TZID.test(fixed)) fixed = fixed.replace(SINGLE_QUOTED_TZID, (_m, tz: string) => `;TZID="${tz}"`);
    if (UNQUOTED_DISPLAY_TZID.test(fixed)) fixed = fixed.replace(UNQUOTED_DISPLAY_TZID, (_m, tz: string) => `;TZID="${tz.trim()}"`);
    else if (UNCLOSED_TZID.test(fixed) && !/;TZID="[^"]*"/i.test(fixed))
      fixed = fixed.replace(UNCLOSED_TZID, (_m, tz: string) => `;TZID="${tz}"`);
    const date = DATE_VALUED.exec(fixed);
    if (date && !/;VALUE=/i.test(date[2] ?? '')) fixed = `${date[1]}${date[2] ?? ''};VALUE=DATE:${date[3]}`;
    return fixed;
  });
}

/** The UID of a VEVENT ical.js could not read, from its text: for the skip report only. */
function rawUid(blockLines: PhysicalLine[]): string | null {
  const line = unfold(blockLines).find((l) => /^UID[;:]/i.test(l));
  const value = line?.slice(line.indexOf(':') + 1).trim();
  return value ? value.slice(0, 200) : null;
}

/**
 * ical.js errors carry no line numbers but quote the culprit (`invalid line
 * (no token ";" or ":") "<line>"`, `invalid frequency "BOGUS"`): the first
 * line holding the first quoted fragment of 3+ characters.
 */
function lineOf(lines: PhysicalLine[], message: string): number | null {
  for (const [, quoted = ''] of message.matchAll(/"([^"]*)"/g)) {
    if (quoted.length < 3) continue;
    const probe = quoted.slice(0, 60);
    const found = lines.find((l) => l.text.includes(probe));
    if (found) return found.number;
  }
  return null;
}

/** The line of the first `name` property after the BEGIN:VEVENT on line `from`. */
function propertyLine(lines: PhysicalLine[], from: number, name: string): number {
  const pattern = new RegExp(`^${name}[;:]`, 'i');
  return lines.find((l) => l.number > from && pattern.test(l.text))?.number ?? from;
}

function cap(text: string): string {
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
