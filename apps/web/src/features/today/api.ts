import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { components } from '@worktrack/sdk';
import { api, unwrap } from '../../lib/api-client';
import { signedInMember } from '../../lib/auth';
import { announce } from '../../lib/live';
import { dateIn, startOfDay } from '../../lib/time';

/** A Session (D-27) with the D-49 durations, which older gateways may not send yet. */
export type Session = components['schemas']['SessionBody'] & { tracked_seconds?: number; paused_seconds?: number };
export type StoredEvent = components['schemas']['StoredEventBody'];
export type Member = components['schemas']['MemberBody'];

/** A session as the app holds it: with the moment it arrived, so the elapsed time ticks from there. */
export interface Held {
  session: Session;
  receivedAt: number;
}

/** Work arriving from elsewhere (the CLI, an agent, another device) shows within this long without a reload. */
export const POLL_MS = 10_000;

/** The member (D-13); the first answer comes with the sign-in or refresh (D-40) when it carried one. */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: () => unwrap(api.GET('/me')),
    staleTime: 60_000,
    initialData: () => (signedInMember() as Member | null) ?? undefined,
  });
}

/**
 * Without D-49's durations, a paused session's elapsed time stops where this
 * tab first saw it paused: later answers of the same pause keep that moment.
 */
/** The last answer held about each active session, so the timer never steps back. */
const lastActive = new Map<string, Held>();
const firstSeenPaused = new Map<string, number>();

/** A session as it arrived now. */
export function hold(session: Session, now = Date.now()): Held {
  if (typeof session.tracked_seconds === 'number' || session.state !== 'paused') {
    firstSeenPaused.delete(session.session_id);
    const before = lastActive.get(session.session_id);
    let held: Held = { session, receivedAt: now };
    if (session.state === 'active' && typeof session.tracked_seconds === 'number' && before?.session.state === 'active') {
      // An answer's whole seconds are rounded down: a fresher answer about the same run never moves the timer back.
      const shown = elapsedSeconds(before, now);
      if (shown > session.tracked_seconds && shown - session.tracked_seconds < 2)
        held = { session: { ...session, tracked_seconds: shown }, receivedAt: now };
    }
    if (session.state === 'active') lastActive.set(session.session_id, held);
    else lastActive.delete(session.session_id);
    return held;
  }
  const seen = firstSeenPaused.get(session.session_id) ?? now;
  firstSeenPaused.set(session.session_id, seen);
  return { session, receivedAt: seen };
}

/** The member's live session (D-22: at most one, active or paused), or null. */
async function liveSession(): Promise<Held | null> {
  const [active, paused] = await Promise.all(
    (['active', 'paused'] as const).map((state) => unwrap(api.GET('/sessions', { params: { query: { state, limit: 1 } } }))),
  );
  const session = active[0] ?? paused[0];
  return session ? hold(session) : null;
}

const liveSessionQuery = queryOptions({ queryKey: ['live', 'session'], queryFn: liveSession, refetchInterval: POLL_MS });

export function useLiveSession() {
  return useQuery(liveSessionQuery);
}

/**
 * Seconds worked, pauses excluded. With D-49's `tracked_seconds` it counts on
 * from the answer's arrival while active; without it, from `started_at` (which
 * cannot know earlier pauses), frozen while paused. Computed from the clock
 * each time, so it is right after the laptop sleeps.
 */
export function elapsedSeconds(held: Held, now: number): number {
  const { session, receivedAt } = held;
  const running = session.state === 'active';
  if (typeof session.tracked_seconds === 'number') {
    return session.tracked_seconds + (running ? Math.max(0, (now - receivedAt) / 1000) : 0);
  }
  const end = session.closed_at ? Date.parse(session.closed_at) : running ? now : receivedAt;
  return Math.max(0, (end - Date.parse(session.started_at)) / 1000);
}

export function useSessionAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (
      action:
        | { kind: 'start'; intent: string; key: string }
        | { kind: 'pause' | 'resume'; id: string }
        | { kind: 'stop'; id: string; closedAt?: string },
    ) => {
      switch (action.kind) {
        case 'start':
          return unwrap(
            // The key is the action's, so "Try again" after no answer never starts a second session (D-28).
            api.POST('/sessions', { body: { intent_text: action.intent, source: 'timer', idempotency_key: action.key } }),
          );
        case 'pause':
          return unwrap(api.POST('/sessions/{session_id}/pause', { params: { path: { session_id: action.id } }, body: {} }));
        case 'resume':
          return unwrap(api.POST('/sessions/{session_id}/resume', { params: { path: { session_id: action.id } } }));
        case 'stop':
          return unwrap(
            api.POST('/sessions/{session_id}/close', {
              params: { path: { session_id: action.id } },
              body: action.closedAt ? { closed_at: action.closedAt } : {},
            }),
          );
      }
    },
    onSuccess: (session) => {
      const s = session as Session;
      const held: Held | null = s.state === 'closed' ? null : hold(s);
      client.setQueryData<Held | null>(['live', 'session'], () => held);
      void client.invalidateQueries({ queryKey: ['live'] });
      void client.invalidateQueries({ queryKey: ['sessions'] });
      announce(['live', 'sessions']);
    },
    onError: () => {
      // SESSION_STATE_CONFLICT and friends: show where the session stands now.
      void client.invalidateQueries({ queryKey: ['live'] });
    },
  });
}

export interface Timeline {
  sessions: Session[];
  events: StoredEvent[];
}

/** Today's sessions and events in the member's time zone (D-29 dates, D-21 instants). */
function todayTimelineQuery(date: string, timeZone: string) {
  return queryOptions({
    queryKey: ['live', 'timeline', date, timeZone],
    refetchInterval: POLL_MS,
    queryFn: async (): Promise<Timeline> => {
      const from = new Date(startOfDay(date, timeZone)).toISOString();
      const to = new Date(Date.now() + 60_000).toISOString();
      const [sessions, events] = await Promise.all([
        unwrap(api.GET('/sessions', { params: { query: { from: date, to: date, limit: 100 } } })),
        unwrap(api.GET('/activity/events', { params: { query: { from, to, limit: 100 } } })),
      ]);
      return { sessions: sessions, events };
    },
  });
}

export function useTodayTimeline(date: string, timeZone: string) {
  return useQuery(todayTimelineQuery(date, timeZone));
}

/**
 * Asks for Today's data as soon as the access token is there, without
 * waiting for the page to render: the live session, and, when the sign-in
 * answered with the member (D-40), today's timeline in the member's time
 * zone. Today's queries then find their answers on the way.
 */
export function prefetchToday(client: QueryClient): void {
  void client.prefetchQuery(liveSessionQuery);
  const member = signedInMember() as Member | null;
  if (member) void client.prefetchQuery(todayTimelineQuery(dateIn(Date.now(), member.timezone), member.timezone));
}
