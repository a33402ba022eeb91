import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, Loading, Section } from '../../components/ui';
import { api, unwrap } from '../../lib/api-client';
import { announce } from '../../lib/live';
import { addDays, dateIn, formatDuration, localInputToIso, longDate, timeOfDay } from '../../lib/time';
import { elapsedSeconds, useMe } from '../today/api';

function ManualBlock({ timeZone }: { timeZone: string }) {
  const client = useQueryClient();
  const [intent, setIntent] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const add = useMutation({
    // The key is the submission's, so "Try again" after no answer never adds the block twice (D-28).
    mutationFn: (key: string) =>
      unwrap(
        api.POST('/sessions', {
          body: {
            intent_text: intent.trim(),
            source: 'manual',
            started_at: localInputToIso(from, timeZone),
            ended_at: localInputToIso(to, timeZone),
            idempotency_key: key,
          },
        }),
      ),
    onSuccess: () => {
      setIntent('');
      void client.invalidateQueries({ queryKey: ['sessions'] });
      void client.invalidateQueries({ queryKey: ['live'] });
      announce(['sessions', 'live']);
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    add.mutate(crypto.randomUUID());
  };
  return (
    <Section title="Add a block of work">
      <form onSubmit={submit}>
        <Field label="What did you work on?" required maxLength={500} value={intent} onChange={(e) => setIntent(e.target.value)} />
        <div className="row">
          <Field label="Started at" type="datetime-local" required value={from} onChange={(e) => setFrom(e.target.value)} />
          <Field label="Ended at" type="datetime-local" required value={to} onChange={(e) => setTo(e.target.value)} />
        </div>
        <p className="hint">In your time zone ({timeZone}); at most 12 hours, not in the future.</p>
        <button type="submit" disabled={add.isPending}>
          Add block
        </button>
        {add.isSuccess && <p role="status">Block added.</p>}
        <ErrorNotice error={add.error} onRetry={() => add.variables && add.mutate(add.variables)} />
      </form>
    </Section>
  );
}

/** D-44 Sessions: by date range in the member's time zone (D-29), newest first, and manual blocks (D-24). */
export function Sessions() {
  const me = useMe();
  const timeZone = me.data?.timezone ?? 'UTC';
  const today = dateIn(Date.now(), timeZone);
  const [range, setRange] = useState<{ from: string; to: string } | null>(null);
  const shown = range ?? { from: addDays(today, -6), to: today };
  const [draft, setDraft] = useState(shown);
  const list = useInfiniteQuery({
    queryKey: ['sessions', shown.from, shown.to],
    enabled: me.isSuccess,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => {
      const result = await api.GET('/sessions', { params: { query: { from: shown.from, to: shown.to, limit: 50, cursor: pageParam } } });
      const data = await unwrap(Promise.resolve(result));
      return { data: data, cursor: result.data?.meta.cursor ?? null, receivedAt: Date.now() };
    },
    getNextPageParam: (last) => last.cursor ?? undefined,
  });

  if (me.isPending) return <Loading what="your sessions" />;
  if (me.isError) return <ErrorNotice error={me.error} onRetry={() => void me.refetch()} />;

  const rows = list.data?.pages.flatMap((p) => p.data.map((s) => ({ s, receivedAt: p.receivedAt }))) ?? [];
  return (
    <>
      <h1>Sessions</h1>
      <form
        className="card row"
        onSubmit={(e) => {
          e.preventDefault();
          setRange(draft);
        }}
      >
        <Field label="From" type="date" required value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
        <Field label="To" type="date" required value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
        <button type="submit">Show</button>
      </form>
      {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
      {list.isPending && <Loading what="sessions" />}
      {list.isSuccess && (
        <section aria-label={`Sessions from ${longDate(shown.from)} to ${longDate(shown.to)}`} className="card">
          {rows.length === 0 ? (
            <p className="muted">No sessions in these days.</p>
          ) : (
            <table className="list">
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">What</th>
                  <th scope="col">When</th>
                  <th scope="col">Tracked</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ s, receivedAt }) => (
                  <tr key={s.session_id}>
                    <td>{longDate(dateIn(Date.parse(s.started_at), timeZone))}</td>
                    <td>
                      {s.intent_text}
                      {s.source === 'manual' && <span className="tag">manual</span>}
                    </td>
                    <td>
                      {timeOfDay(s.started_at, timeZone)} – {s.closed_at ? timeOfDay(s.closed_at, timeZone) : 'now'}
                    </td>
                    <td>{formatDuration(elapsedSeconds({ session: s, receivedAt }, Date.now()))}</td>
                    <td>{s.state}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {list.hasNextPage && (
            <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              Show more
            </button>
          )}
        </section>
      )}
      <ManualBlock timeZone={timeZone} />
    </>
  );
}
