import { createHash } from 'node:crypto';
import { MAX_EXTERNAL_ID_LENGTH, findSecrets } from '@worktrack/contracts';
import { MappedEvent } from '../mapping/mapped-event';
import { CalendarInstance, MAX_SEQUENCE, TimeWindow } from './ics-feed';
import type { KnownInstance } from '../store/entities/connector.entity';

/**
 * Turns the instances of a calendar poll into activity events, by diffing
 * them against what earlier polls emitted (the caller persists `state`
 * between polls). Pure and deterministic: the same inputs give the same
 * events with the same externalIds, so a poll repeated after a crash re-sends
 * what ingestion already holds and it deduplicates them (D-15).
 *
 * - `calendar.meeting` (externalId `key`, occurredAt = start): an instance
 *   that has started, not cancelled, not emitted before. A meeting becomes an
 *   event only once it has started (D-19: never more than 10 minutes ahead).
 * - `calendar.meeting.updated` (`key@sequence`, occurredAt = now): an emitted
 *   instance whose SEQUENCE rose and whose title, times, status or counts
 *   differ from what was emitted.
 * - `calendar.meeting.cancelled` (`key!cancelled`, occurredAt = now): an
 *   emitted instance now cancelled, or gone from the feed (EXDATE added,
 *   event deleted) while its start is still inside the window.
 *
 * Instances are placed by their (possibly moved) start, like
 * `expandInstances`: an emitted occurrence whose override moves it out of
 * the window reads as gone and is reported cancelled.
 *
 * key = `uid` for a non-recurring event, `uid/recurrenceId` for an occurrence
 * (D-36: UID + RECURRENCE-ID). A UID too long to leave room for the longest
 * suffix within MAX_EXTERNAL_ID_LENGTH is replaced by `sha256:<hex of the UID>`.
 */

export const CALENDAR_EVENT_TYPES = {
  meeting: 'calendar.meeting',
  updated: 'calendar.meeting.updated',
  cancelled: 'calendar.meeting.cancelled',
} as const;

export interface CalendarPlanInput {
  /** `expandInstances(feed, window)`; instances starting outside the window are ignored. */
  instances: CalendarInstance[];
  known: KnownInstance[];
  now: Date;
  window: TimeWindow;
}

export interface CalendarPlan {
  /** Sorted by occurredAt, then externalId. */
  events: MappedEvent[];
  /** The full new state, sorted by start then key; entries that started before `window.from` are dropped. */
  state: KnownInstance[];
}

/** Payload titles are cut to this many characters. */
export const MAX_TITLE_LENGTH = 200;
const LONGEST_SUFFIX = `@${MAX_SEQUENCE}`.length;
const MAX_KEY_LENGTH = MAX_EXTERNAL_ID_LENGTH - LONGEST_SUFFIX;
const RECURRENCE_SUFFIX = /^(.*)\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$/s;

export function instanceKey(uid: string, recurrenceId: string | null): string {
  const suffix = recurrenceId === null ? '' : `/${recurrenceId}`;
  const uidPart = uid.length + suffix.length <= MAX_KEY_LENGTH ? uid : `sha256:${sha256(uid)}`;
  return `${uidPart}${suffix}`;
}

export function instanceFingerprint(instance: CalendarInstance): string {
  const { title, start, end, status, allDay, hasOrganizer, attendeeCount } = instance;
  return sha256(JSON.stringify([title, start, end, status, allDay, hasOrganizer, attendeeCount]));
}

export function planCalendarEvents(input: CalendarPlanInput): CalendarPlan {
  const nowMs = input.now.getTime();
  const now = input.now.toISOString();
  const fromMs = input.window.from.getTime();
  const toMs = input.window.to.getTime();
  const inWindow = (ms: number): boolean => ms >= fromMs && ms < toMs;

  const known = new Map<string, KnownInstance>();
  for (const entry of input.known) if (!known.has(entry.key)) known.set(entry.key, entry);

  const current = new Map<string, { instance: CalendarInstance; fingerprint: string }>();
  for (const instance of input.instances) {
    if (!inWindow(Date.parse(instance.start))) continue;
    const key = instanceKey(instance.uid, instance.recurrenceId);
    const fingerprint = instanceFingerprint(instance);
    const seen = current.get(key);
    // A feed repeating an instance: the highest SEQUENCE, then the smallest fingerprint, wins.
    if (
      !seen ||
      instance.sequence > seen.instance.sequence ||
      (instance.sequence === seen.instance.sequence && fingerprint < seen.fingerprint)
    ) {
      current.set(key, { instance, fingerprint });
    }
  }

  const events: MappedEvent[] = [];
  const state: KnownInstance[] = [];

  for (const [key, { instance, fingerprint }] of current) {
    const prev = known.get(key);
    const cancelled = instance.status === 'cancelled';
    const seen: KnownInstance = { key, sequence: instance.sequence, fingerprint, emitted: false, cancelled, start: instance.start };

    if (!prev?.emitted) {
      if (!cancelled && Date.parse(instance.start) <= nowMs) {
        events.push(event(CALENDAR_EVENT_TYPES.meeting, key, instance.start, instancePayload(key, instance)));
        state.push({ ...seen, emitted: true });
      } else {
        state.push(seen);
      }
    } else if (cancelled) {
      if (!prev.cancelled) {
        events.push(event(CALENDAR_EVENT_TYPES.cancelled, `${key}!cancelled`, now, instancePayload(key, instance)));
      }
      state.push({ ...seen, emitted: true });
    } else if (instance.sequence > prev.sequence && fingerprint !== prev.fingerprint) {
      events.push(event(CALENDAR_EVENT_TYPES.updated, `${key}@${instance.sequence}`, now, instancePayload(key, instance)));
      state.push({ ...seen, emitted: true });
    } else {
      // Unchanged, or changed without a SEQUENCE bump: keep the emitted version as the reference.
      state.push({ ...prev, cancelled: false, start: instance.start });
    }
  }

  for (const prev of known.values()) {
    if (current.has(prev.key)) continue;
    const startMs = Date.parse(prev.start);
    if (Number.isNaN(startMs) || startMs < fromMs || !prev.emitted) continue;
    if (startMs >= toMs || prev.cancelled) {
      state.push(prev);
    } else {
      events.push(event(CALENDAR_EVENT_TYPES.cancelled, `${prev.key}!cancelled`, now, vanishedPayload(prev)));
      state.push({ ...prev, cancelled: true });
    }
  }

  events.sort((a, b) => compare(a.occurredAt, b.occurredAt) || compare(a.externalId, b.externalId));
  state.sort((a, b) => compare(a.start, b.start) || compare(a.key, b.key));
  return { events, state };
}

function event(eventType: string, externalId: string, occurredAt: string, payload: Record<string, unknown>): MappedEvent {
  return { sourceType: 'calendar', eventType, occurredAt, payload, externalId };
}

/**
 * Metadata only (D-36): never a description, a location or an attendee's
 * address. `uid` is the key's UID part (the `sha256:` form for an overlong UID).
 */
function instancePayload(key: string, instance: CalendarInstance): Record<string, unknown> {
  return {
    uid: instance.recurrenceId === null ? key : key.slice(0, -(instance.recurrenceId.length + 1)),
    recurrence_id: instance.recurrenceId,
    sequence: instance.sequence,
    title: safeTitle(instance.title),
    status: instance.status,
    starts_at: instance.start,
    ends_at: instance.end,
    duration_minutes: Math.round((Date.parse(instance.end) - Date.parse(instance.start)) / 60_000),
    all_day: instance.allDay,
    has_organizer: instance.hasOrganizer,
    attendee_count: instance.attendeeCount,
  };
}

/** An instance gone from the feed: what the state remembers (UID part and RECURRENCE-ID from the key), the rest null. */
function vanishedPayload(prev: KnownInstance): Record<string, unknown> {
  const match = RECURRENCE_SUFFIX.exec(prev.key);
  return {
    uid: match?.[1] ?? prev.key,
    recurrence_id: match?.[2] ?? null,
    sequence: prev.sequence,
    title: null,
    status: 'cancelled',
    starts_at: prev.start,
    ends_at: null,
    duration_minutes: null,
    all_day: null,
    has_organizer: null,
    attendee_count: null,
  };
}

/**
 * A title as harmless metadata: cut to MAX_TITLE_LENGTH, and dropped (null)
 * when it looks like a secret — ingestion would refuse the whole batch (D-18).
 */
function safeTitle(title: string | null): string | null {
  if (title === null) return null;
  const chars = Array.from(title);
  const cut = chars.length > MAX_TITLE_LENGTH ? `${chars.slice(0, MAX_TITLE_LENGTH - 1).join('')}…` : title;
  return findSecrets(cut).length > 0 ? null : cut;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
