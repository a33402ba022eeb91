import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorNotice, Field, Loading, Section } from '../../components/ui';
import { request } from '../../lib/api-client';
import { sentenceFor } from '../../lib/errors';
import { addDays, dateIn, formatDuration, longDate } from '../../lib/time';
import { useMe } from '../today/api';

/** D-50: one group of the summary report. */
export interface SummaryRow {
  group: { member_kind?: string; work_type?: string | null; day?: string };
  tracked_seconds: number;
  paused_seconds: number;
  session_count: number;
  linked_event_count: number;
  outside_session_event_count: number;
  usage_cost: string;
}
interface Summary {
  data: SummaryRow[];
  meta: { as_of: string; tz: string; from: string; to: string; totals: Omit<SummaryRow, 'group'> };
}

const query = (from: string, to: string, groupBy: string): string =>
  `/reports/summary?${new URLSearchParams({ from, to, group_by: groupBy }).toString()}`;

function SummaryTable({ caption, rows, keys }: { caption: string; rows: SummaryRow[]; keys: ('day' | 'work_type' | 'member_kind')[] }) {
  const label = { day: 'Day', work_type: 'Work type', member_kind: 'Who' } as const;
  const show = (key: (typeof keys)[number], row: SummaryRow): string => {
    const value = row.group[key];
    if (key === 'day' && value) return longDate(value);
    if (key === 'member_kind') return value === 'agent' ? 'Agents' : 'People';
    return value ?? 'Outside any session';
  };
  if (rows.length === 0) return <p className="muted">Nothing tracked in these days.</p>;
  return (
    <table className="list">
      <caption>{caption}</caption>
      <thead>
        <tr>
          {keys.map((k) => (
            <th scope="col" key={k}>
              {label[k]}
            </th>
          ))}
          <th scope="col">Tracked</th>
          <th scope="col">Sessions</th>
          <th scope="col">Events outside sessions</th>
          <th scope="col">Usage cost (USD)</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={keys.map((k) => row.group[k] ?? '-').join('|')}>
            {keys.map((k) => (
              <td key={k}>{show(k, row)}</td>
            ))}
            <td>{formatDuration(row.tracked_seconds)}</td>
            <td>{row.session_count}</td>
            <td>{row.outside_session_event_count}</td>
            <td>{row.usage_cost}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** D-44 Reports over D-50 … D-52: totals by day and work type, people against agents, and the CSV. */
export function Reports() {
  const me = useMe();
  const today = dateIn(Date.now(), me.data?.timezone ?? 'UTC');
  const [range, setRange] = useState<{ from: string; to: string } | null>(null);
  const shown = range ?? { from: addDays(today, -6), to: today };
  const [draft, setDraft] = useState(shown);
  const [csvError, setCsvError] = useState('');
  const byDay = useQuery({
    queryKey: ['reports', 'day', shown],
    enabled: me.isSuccess,
    queryFn: () => request<Summary>('GET', query(shown.from, shown.to, 'day,work_type')),
  });
  const byKind = useQuery({
    queryKey: ['reports', 'kind', shown],
    enabled: me.isSuccess,
    queryFn: () => request<Summary>('GET', query(shown.from, shown.to, 'member_kind')),
  });

  const download = async (): Promise<void> => {
    setCsvError('');
    try {
      const csv = await request<string>('GET', query(shown.from, shown.to, 'day,work_type'), undefined, 'text/csv');
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `worktrack-summary-${shown.from}-${shown.to}.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setCsvError(sentenceFor(err));
    }
  };

  if (me.isPending) return <Loading what="reports" />;
  return (
    <>
      <h1>Reports</h1>
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
        <button type="button" onClick={() => void download()}>
          Download CSV
        </button>
      </form>
      {csvError && (
        <p role="alert" className="notice error">
          {csvError}
        </p>
      )}
      <Section title="By day and work type">
        {byDay.isPending && <Loading what="the summary" />}
        {byDay.isError && <ErrorNotice error={byDay.error} onRetry={() => void byDay.refetch()} />}
        {byDay.data && (
          <>
            <SummaryTable
              caption={`From ${longDate(shown.from)} to ${longDate(shown.to)}`}
              rows={byDay.data.data}
              keys={['day', 'work_type']}
            />
            <p className="muted">
              In all: {formatDuration(byDay.data.meta.totals.tracked_seconds)} tracked in {byDay.data.meta.totals.session_count} sessions.
            </p>
          </>
        )}
      </Section>
      <Section title="People and agents">
        {byKind.isPending && <Loading what="the summary" />}
        {byKind.isError && <ErrorNotice error={byKind.error} onRetry={() => void byKind.refetch()} />}
        {byKind.data && <SummaryTable caption="Human against agent work" rows={byKind.data.data} keys={['member_kind']} />}
      </Section>
    </>
  );
}
