import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import type { IcsEvent, InstanceStatus } from './ics-feed';
import { errorMessage, propertyLine, unfold, type PhysicalLine } from './ics-text';
import { dateKey, dayStartMs, instantMs, type TimeContext } from './ics-time';

/**
 * One VEVENT decoded on its own into an `IcsEvent`: its times in the feed's
 * zones, its recurrence, its metadata (never DESCRIPTION, LOCATION, ATTACH or
 * attendee addresses, D-36). A VEVENT that cannot be read throws EventError,
 * and the feed skips it.
 */

/** The largest SEQUENCE taken as given; larger or non-integer values are clamped into [0, this]. */
export const MAX_SEQUENCE = 2_147_483_647;

/** One VEVENT could not be read: it is skipped, the feed is not. */
export class EventError extends Error {
  constructor(
    readonly uid: string | null,
    readonly line: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export interface DecodeContext {
  line: number;
  position: number;
  blockLines: PhysicalLine[];
  context: TimeContext;
  /** How many UID-less VEVENTs with the same content came before (to keep derived ids distinct). */
  derivedSeen: Map<string, number>;
}

export function decodeEvent(vevent: ICAL.Component, at: DecodeContext): IcsEvent {
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

export function tzidOf(prop: ICAL.Property | null): string | null {
  const tzid = prop?.getFirstParameter('tzid');
  return typeof tzid === 'string' && tzid !== '' ? tzid : null;
}

export function safeValue(component: ICAL.Component, name: string): unknown {
  try {
    return component.getFirstPropertyValue(name);
  } catch {
    return null;
  }
}
