import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNotice, Field, Loading, Section } from '../../components/ui';
import { dateIn, formatDuration, isoToLocalInput, localInputToIso, spokenDuration, timeOfDay } from '../../lib/time';
import {
  elapsedSeconds,
  useLiveSession,
  useMe,
  useSessionAction,
  useTodayTimeline,
  type Held,
  type Session,
  type StoredEvent,
} from './api';

/** Re-renders every `ms`; the value is read from the clock, never accumulated. */
function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

function Elapsed({ held }: { held: Held }) {
  const now = useNow(1000);
  const seconds = elapsedSeconds(held, now);
  return (
    <div role="timer" aria-label={`Elapsed time ${spokenDuration(seconds)}`} className="elapsed">
      {formatDuration(seconds)}
    </div>
  );
}

function LiveCard({ held, timeZone }: { held: Held; timeZone: string }) {
  const action = useSessionAction();
  const [stopEarlier, setStopEarlier] = useState(false);
  const [stoppedAt, setStoppedAt] = useState('');
  const { session } = held;

  const stop = (): void => {
    const closedAt = stopEarlier && stoppedAt ? localInputToIso(stoppedAt, timeZone) : undefined;
    action.mutate({ kind: 'stop', id: session.session_id, closedAt });
  };

  return (
    <Section title="Now">
      <p className="intent">{session.intent_text}</p>
      <p className="muted">
        {session.state === 'paused' ? 'Paused' : 'Running'} since {timeOfDay(session.started_at, timeZone)}
      </p>
      <Elapsed held={held} />
      <div className="actions">
        {session.state === 'active' ? (
          <button type="button" onClick={() => action.mutate({ kind: 'pause', id: session.session_id })} disabled={action.isPending}>
            Pause
          </button>
        ) : (
          <button type="button" onClick={() => action.mutate({ kind: 'resume', id: session.session_id })} disabled={action.isPending}>
            Resume
          </button>
        )}
        <button type="button" className="primary" onClick={stop} disabled={action.isPending}>
          Stop
        </button>
      </div>
      <div className="field-inline">
        <input
          id="stop-earlier"
          type="checkbox"
          checked={stopEarlier}
          onChange={(e) => {
            setStopEarlier(e.target.checked);
            if (e.target.checked && !stoppedAt) setStoppedAt(isoToLocalInput(Date.now(), timeZone));
          }}
        />
        <label htmlFor="stop-earlier">I stopped earlier</label>
      </div>
      {stopEarlier && (
        <Field
          label="Stopped at"
          type="datetime-local"
          hint="Up to 24 hours ago, in your time zone."
          value={stoppedAt}
          onChange={(e) => setStoppedAt(e.target.value)}
        />
      )}
      <ErrorNotice error={action.error} onRetry={() => action.variables && action.mutate(action.variables)} />
    </Section>
  );
}

function StartForm({ live }: { live: boolean }) {
  const action = useSessionAction();
  const [intent, setIntent] = useState('');
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!intent.trim()) return;
    action.mutate({ kind: 'start', intent: intent.trim(), key: crypto.randomUUID() }, { onSuccess: () => setIntent('') });
  };
  return (
    <form onSubmit={submit} className="card start">
      <Field
        label="What are you working on?"
        maxLength={500}
        required
        value={intent}
        onChange={(e) => setIntent(e.target.value)}
        hint={live ? 'Starting stops the session that is running now.' : undefined}
      />
      <button type="submit" className="primary" disabled={action.isPending}>
        Start
      </button>
      <ErrorNotice
        error={action.error}
        onRetry={() => action.variables && action.mutate(action.variables, { onSuccess: () => setIntent('') })}
      />
    </form>
  );
}

function EventList({ events, timeZone }: { events: StoredEvent[]; timeZone: string }) {
  if (events.length === 0) return <p className="muted">No events.</p>;
  return (
    <ul className="events">
      {events.map((e) => (
        <li key={e.event_id}>
          <time dateTime={e.occurred_at}>{timeOfDay(e.occurred_at, timeZone)}</time> {e.source_type} · {e.event_type}
        </li>
      ))}
    </ul>
  );
}

function TodayTimeline({ date, timeZone }: { date: string; timeZone: string }) {
  const timeline = useTodayTimeline(date, timeZone);
  if (timeline.isPending) return <Loading what="today's timeline" />;
  if (timeline.isError) return <ErrorNotice error={timeline.error} onRetry={() => void timeline.refetch()} />;
  const { sessions, events } = timeline.data;
  const bySession = new Map<string, StoredEvent[]>();
  const outside: StoredEvent[] = [];
  for (const e of events) {
    if (e.session_id === null) outside.push(e);
    else bySession.set(e.session_id, [...(bySession.get(e.session_id) ?? []), e]);
  }
  const known = new Set(sessions.map((s) => s.session_id));
  const earlier = [...bySession.keys()].filter((id) => !known.has(id));
  const span = (s: Session): string =>
    `${timeOfDay(s.started_at, timeZone)} – ${s.closed_at ? timeOfDay(s.closed_at, timeZone) : s.state === 'paused' ? 'paused' : 'now'}`;
  return (
    <Section title="Today's timeline">
      {sessions.length === 0 && outside.length === 0 && earlier.length === 0 && <p className="muted">Nothing yet today.</p>}
      <ol className="timeline">
        {sessions.map((s) => (
          <li key={s.session_id} className="group">
            <h3>
              {s.intent_text} <span className="muted">{span(s)}</span>
            </h3>
            <EventList events={bySession.get(s.session_id) ?? []} timeZone={timeZone} />
          </li>
        ))}
        {earlier.map((id) => (
          <li key={id} className="group">
            <h3>A session that started before today</h3>
            <EventList events={bySession.get(id) ?? []} timeZone={timeZone} />
          </li>
        ))}
        {outside.length > 0 && (
          <li className="group outside">
            <h3>Outside any session</h3>
            <EventList events={outside} timeZone={timeZone} />
          </li>
        )}
      </ol>
    </Section>
  );
}

/** D-44 Today: the live session card and today's timeline grouped by session. */
export function Today() {
  const me = useMe();
  const live = useLiveSession();
  const now = useNow(60_000);
  if (me.isPending) return <Loading what="your day" />;
  if (me.isError) return <ErrorNotice error={me.error} onRetry={() => void me.refetch()} />;
  const timeZone = me.data.timezone;
  const date = dateIn(now, timeZone);
  return (
    <>
      <h1>Today</h1>
      {live.isError && <ErrorNotice error={live.error} onRetry={() => void live.refetch()} />}
      {live.data && <LiveCard held={live.data} timeZone={timeZone} />}
      <StartForm live={Boolean(live.data)} />
      <TodayTimeline date={date} timeZone={timeZone} />
    </>
  );
}
