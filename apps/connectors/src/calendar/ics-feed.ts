import ICAL from 'ical.js';

/**
 * Reading an iCalendar (RFC 5545) feed and expanding its VEVENTs into the
 * occurrences of a time window. Pure: no I/O, no clock, and results depend
 * on nothing but the arguments.
 *
 * Time zones resolve per feed: ical.js (2.x) looks a TZID up in the VTIMEZONEs
 * of the VCALENDAR the property belongs to, so nothing is registered in the
 * process-wide `ICAL.TimezoneService` and one feed's zones never leak into
 * another's. A TZID the feed does not define is tried as an IANA zone name
 * (`Europe/Berlin`) through `Intl`; failing that, and for floating times
 * (no TZID, no `Z`), the wall-clock time is read as UTC.
 *
 * All-day events (DATE values) start and end at UTC midnight of their dates:
 * `DTSTART;VALUE=DATE:20261117` starts at `2026-11-17T00:00:00.000Z`.
 *
 * Only metadata is read: never DESCRIPTION, LOCATION (it often holds meeting
 * passcodes), ATTACH or attendee addresses — only whether there is an
 * ORGANIZER and how many ATTENDEEs (D-36).
 */

/**
 * Bounds on recurrence expansion, against hostile or runaway feeds (an
 * ical.js step costs some 30–50 µs). A series stops after `perSeries` steps
 * counted from its DTSTART (a FREQ=SECONDLY rule never ends; the cut is
 * always at the same occurrence, so it does not move between polls). A feed
 * needing more than `perFeed` steps in all is refused with an IcsParseError
 * rather than expanded partially, which would make instances flicker.
 */
export interface ExpansionLimits {
  perSeries: number;
  perFeed: number;
}
export const DEFAULT_EXPANSION_LIMITS: Readonly<ExpansionLimits> = { perSeries: 10_000, perFeed: 250_000 };
/** The largest SEQUENCE taken as given; larger or non-integer values are clamped into [0, this]. */
export const MAX_SEQUENCE = 2_147_483_647;

/** The feed is not a usable VCALENDAR. `line` is the 1-based physical line when it is known. */
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

/** A VEVENT, decoded and checked by `parseIcsFeed`. */
export interface IcsEvent {
  /** 1-based line of its BEGIN:VEVENT. */
  readonly line: number;
  readonly uid: string;
  /** Epoch ms of RECURRENCE-ID; null for a master or a single event. */
  readonly recurrenceIdMs: number | null;
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
  readonly events: readonly IcsEvent[];
}

export interface TimeWindow {
  from: Date;
  to: Date;
}

/** Parses and checks a feed; throws IcsParseError on anything that is not one well-formed VCALENDAR. */
export function parseIcsFeed(text: string): IcsFeed {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = physicalLines(source);
  const veventLines = checkStructure(lines);

  let jcal: unknown;
  try {
    jcal = ICAL.parse(source);
  } catch (error) {
    const message = errorMessage(error);
    throw new IcsParseError(`not a valid iCalendar feed: ${message}`, lineOf(lines, message));
  }
  if (!Array.isArray(jcal) || jcal[0] !== 'vcalendar') {
    throw new IcsParseError('not a valid iCalendar feed: expected a single VCALENDAR');
  }
  const calendar = new ICAL.Component(jcal);
  const prodId = calendar.getFirstPropertyValue('prodid');
  const vevents = calendar.getAllSubcomponents('vevent');
  const events = vevents.map((vevent, index) => {
    const line = veventLines[index] ?? 0;
    return decodeEvent(vevent, line, (name) => propertyLine(lines, line, name));
  });
  return { prodId: typeof prodId === 'string' ? prodId : null, events };
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
export function expandInstances(
  feed: IcsFeed,
  window: TimeWindow,
  limits: Readonly<ExpansionLimits> = DEFAULT_EXPANSION_LIMITS,
): CalendarInstance[] {
  const fromMs = window.from.getTime();
  const toMs = window.to.getTime();
  const inWindow = (ms: number): boolean => ms >= fromMs && ms < toMs;
  const budget = { limits, left: limits.perFeed };
  const instances: CalendarInstance[] = [];

  for (const [uid, group] of groupByUid(feed.events)) {
    const master = newest(group.filter((e) => e.recurrenceIdMs === null));
    const overrides = new Map<number, IcsEvent>();
    for (const e of group) {
      if (e.recurrenceIdMs === null) continue;
      const seen = overrides.get(e.recurrenceIdMs);
      if (!seen || e.sequence > seen.sequence) overrides.set(e.recurrenceIdMs, e);
    }

    if (master && !master.recurring) {
      if (inWindow(master.startMs)) instances.push(toInstance(uid, master, null, master.startMs, master.status));
      continue;
    }

    if (master) {
      for (const occurrenceMs of occurrences(master, toMs, budget)) {
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

  return instances.sort(
    (a, b) => compare(a.start, b.start) || compare(a.uid, b.uid) || compare(a.recurrenceId ?? '', b.recurrenceId ?? ''),
  );
}

// ---------------------------------------------------------------- expansion

/**
 * The original starts (epoch ms) of a recurring master's occurrences before
 * `toMs`, ascending, without EXDATEs. ical.js's RecurExpansion merges RRULEs
 * and RDATEs; two of its gaps are filled here: it skips DTSTART when there is
 * RDATE but no RRULE, and its EXDATE walk misses an exclusion that follows an
 * EXDATE matching no occurrence — so EXDATEs are applied here, by instant.
 */
function occurrences(master: IcsEvent, toMs: number, budget: { limits: Readonly<ExpansionLimits>; left: number }): number[] {
  const result: number[] = [];
  const seen = new Set<number>();
  const add = (ms: number, time: ICAL.Time | null): void => {
    if (seen.has(ms)) return;
    seen.add(ms);
    if (master.exdates.instants.has(ms)) return;
    if (time && !time.isDate && master.exdates.dates.has(dateKey(time))) return;
    result.push(ms);
  };

  const dtstart = master.component.getFirstPropertyValue('dtstart');
  if (!(dtstart instanceof ICAL.Time)) return result;
  if (!master.component.hasProperty('rrule') && master.startMs < toMs) add(master.startMs, dtstart);

  let expansion: ICAL.RecurExpansion;
  try {
    expansion = new ICAL.RecurExpansion({ component: master.component, dtstart });
  } catch {
    return result.sort((a, b) => a - b);
  }
  for (let step = 0; step < budget.limits.perSeries; step++) {
    if (--budget.left < 0) {
      throw new IcsParseError(
        `expanding the feed takes more than ${budget.limits.perFeed} recurrence steps (VEVENT ${JSON.stringify(master.uid)}); refusing a feed this expensive`,
        master.line,
      );
    }
    let next: unknown;
    try {
      next = expansion.next();
    } catch {
      // ical.js gives up on a rule it cannot satisfy ("max tries"): the series ends here.
      break;
    }
    // An RDATE may be a PERIOD: its start is the occurrence.
    const time = next instanceof ICAL.Period ? next.start : next;
    if (!(time instanceof ICAL.Time)) break;
    const ms = instantMs(time, master.tzid);
    if (ms >= toMs) break;
    add(ms, time);
  }
  return result.sort((a, b) => a - b);
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

function decodeEvent(vevent: ICAL.Component, line: number, locate: (name: string) => number): IcsEvent {
  const uidValue = vevent.getFirstPropertyValue('uid');
  const uid = typeof uidValue === 'string' ? uidValue.trim() : '';
  if (uid === '') throw new IcsParseError('VEVENT has no UID', line);
  /** Throws, naming the VEVENT and the line of the property at fault (else of its BEGIN:VEVENT). */
  const fail = (name: string, what: string, error?: unknown): never => {
    const cause = error === undefined ? '' : `: ${errorMessage(error)}`;
    throw new IcsParseError(`VEVENT ${JSON.stringify(uid)}: ${what}${cause}`, name === '' ? line : locate(name));
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
  const startMs = instantMs(dtstart, tzid);

  let endMs = startMs;
  const dtend = read('dtend');
  const duration = read('duration');
  if (dtend instanceof ICAL.Time) {
    endMs = instantMs(dtend, tzidOf(vevent.getFirstProperty('dtend')));
  } else if (duration instanceof ICAL.Duration) {
    endMs = startMs + duration.toSeconds() * 1000;
  } else if (dtstart.isDate) {
    endMs = startMs + 86_400_000;
  }
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs)) return fail('dtstart', 'DTSTART/DTEND out of range');

  let recurrenceIdMs: number | null = null;
  const recurrenceId = read('recurrence-id');
  if (recurrenceId !== null) {
    if (!(recurrenceId instanceof ICAL.Time)) return fail('recurrence-id', 'invalid RECURRENCE-ID');
    recurrenceIdMs = instantMs(recurrenceId, tzidOf(vevent.getFirstProperty('recurrence-id')));
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
      instants.add(instantMs(value, tzidOf(prop)));
    }
  }

  const recurring = recurrenceIdMs === null && (vevent.hasProperty('rrule') || vevent.hasProperty('rdate'));
  if (recurring) {
    try {
      for (const prop of vevent.getAllProperties('rdate')) prop.getValues();
      new ICAL.RecurExpansion({ component: vevent, dtstart }).next();
    } catch (error) {
      return fail(vevent.hasProperty('rrule') ? 'rrule' : 'rdate', 'invalid RRULE/RDATE', error);
    }
  }

  const summary = read('summary');
  const title = typeof summary === 'string' ? summary.replace(/\s+/g, ' ').trim() : '';
  const status = read('status');
  return {
    line,
    uid,
    recurrenceIdMs,
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

// ---------------------------------------------------------------- time

/**
 * Epoch ms of an ical.js time. DATE values: UTC midnight. Zoned by the feed's
 * VTIMEZONE or UTC: ical.js knows. Floating with a TZID the feed does not
 * define: that TZID as an IANA zone, else UTC.
 */
function instantMs(time: ICAL.Time, tzid: string | null): number {
  if (time.isDate) return Date.UTC(time.year, time.month - 1, time.day);
  if (time.zone === ICAL.Timezone.localTimezone && tzid !== null) {
    const zoned = ianaToUtc(time, tzid);
    if (zoned !== null) return zoned;
  }
  return time.toUnixTime() * 1000;
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

/** The UTC instant of a wall-clock time in an IANA zone; null if the zone is unknown. */
function ianaToUtc(time: ICAL.Time, tzid: string): number | null {
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

function physicalLines(text: string): PhysicalLine[] {
  return text.split(/\r\n|\n|\r/).map((line, index) => ({ number: index + 1, text: line }));
}

/**
 * Checks the BEGIN/END nesting ical.js only half-checks, with line numbers:
 * one VCALENDAR, every component closed by its own END, nothing after it.
 * Returns the line of each top-level BEGIN:VEVENT, in order.
 */
function checkStructure(lines: PhysicalLine[]): number[] {
  const stack: Array<{ name: string; line: number }> = [];
  const veventLines: number[] = [];
  let seenCalendar = false;
  for (const { number, text } of lines) {
    if (text.trim() === '' || text.startsWith(' ') || text.startsWith('\t')) continue;
    const match = /^(BEGIN|END):(.*)$/i.exec(text.trimEnd());
    const keyword = match?.[1]?.toUpperCase();
    const name = match?.[2]?.trim().toUpperCase() ?? '';
    if (stack.length === 0) {
      if (seenCalendar) throw new IcsParseError(`unexpected content after END:VCALENDAR: ${quote(text)}`, number);
      if (keyword !== 'BEGIN' || name !== 'VCALENDAR') {
        throw new IcsParseError(`not an iCalendar feed: expected BEGIN:VCALENDAR, found ${quote(text)}`, number);
      }
    }
    if (keyword === 'BEGIN') {
      if (name === 'VEVENT' && stack.length === 1) veventLines.push(number);
      stack.push({ name, line: number });
      seenCalendar = true;
    } else if (keyword === 'END') {
      const open = stack.pop();
      if (!open) throw new IcsParseError(`END:${name} without a BEGIN`, number);
      if (open.name !== name) throw new IcsParseError(`END:${name} does not close BEGIN:${open.name} of line ${open.line}`, number);
    }
  }
  if (!seenCalendar) throw new IcsParseError('not an iCalendar feed: the feed is empty');
  const open = stack.at(-1);
  if (open) {
    const last = lines.findLast((l) => l.text.trim() !== '')?.number ?? lines.length;
    throw new IcsParseError(`truncated feed: it ends inside BEGIN:${open.name} of line ${open.line}`, last);
  }
  return veventLines;
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

function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
