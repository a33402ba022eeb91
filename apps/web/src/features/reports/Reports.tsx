import { useState, type FormEvent, type ReactNode } from 'react';
import { ErrorNotice, Field, Loading, Section } from '../../components/ui';
import { sentenceFor } from '../../lib/errors';
import { addDays, dateIn, longDate, weekdayOf, WEEKDAYS } from '../../lib/time';
import { useMe } from '../today/api';
import { fetchSummaryCsv, saveBlob, useSummary, type Summary, type SummaryMetrics, type SummaryQuery, type SummaryRow } from './api';

type Period = 'this-week' | 'last-week' | 'custom';
interface Range {
  from: string;
  to: string;
}

/** Monday to Sunday of the week holding `day`. */
export function weekOf(day: string): Range {
  const monday = addDays(day, -WEEKDAYS.indexOf(weekdayOf(day)));
  return { from: monday, to: addDays(monday, 6) };
}

/** Every calendar date from `from` to `to` (inclusive), at most 366. */
export function daysOf({ from, to }: Range): string[] {
  const days: string[] = [];
  for (let day = from; day <= to && days.length < 366; day = addDays(day, 1)) days.push(day);
  return days;
}

/** "3 h 05 min" for whole seconds. */
export function hours(seconds: number): string {
  const minutes = Math.floor(Math.max(0, seconds) / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

const number = (n: number): string => new Intl.NumberFormat('en-GB').format(n);
/** A decimal string in USD, to the cent (never rounded to zero when something was spent). */
export function dollars(amount: string): string {
  const value = Number(amount);
  if (!Number.isFinite(value) || value === 0) return '$0.00';
  if (value < 0.01) return '< $0.01';
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(value);
}

const WORK_TYPES: Record<string, string> = { intentional: 'Intentional (planned)', reactive: 'Reactive (interruptions)' };

/** The period picker: this week, last week, or any dates. */
function PeriodPicker({ today, range, onChange }: { today: string; range: Range; onChange: (range: Range) => void }) {
  const thisWeek = weekOf(today);
  const lastWeek = weekOf(addDays(thisWeek.from, -1));
  const initial: Period =
    range.from === thisWeek.from && range.to === thisWeek.to ? 'this-week' : range.from === lastWeek.from ? 'last-week' : 'custom';
  const [period, setPeriod] = useState<Period>(initial);
  const [draft, setDraft] = useState(range);
  const [problem, setProblem] = useState('');
  const choose = (next: Period): void => {
    setPeriod(next);
    if (next === 'this-week') onChange(thisWeek);
    if (next === 'last-week') onChange(lastWeek);
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (draft.from > draft.to) return setProblem('The first day must not be after the last day.');
    if (daysOf(draft).length >= 366 && addDays(draft.from, 365) < draft.to) return setProblem('Pick at most 366 days.');
    setProblem('');
    onChange(draft);
  };
  const options: Array<[Period, string]> = [
    ['this-week', 'This week'],
    ['last-week', 'Last week'],
    ['custom', 'Custom dates'],
  ];
  return (
    <form className="card" onSubmit={submit}>
      <fieldset className="choices">
        <legend>Period</legend>
        {options.map(([value, label]) => (
          <label key={value} className="field-inline">
            <input type="radio" name="period" value={value} checked={period === value} onChange={() => choose(value)} />
            {label}
          </label>
        ))}
      </fieldset>
      {period === 'custom' && (
        <div className="row">
          <Field label="From" type="date" required value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
          <Field label="To" type="date" required value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
          <button type="submit">Show</button>
        </div>
      )}
      {problem && (
        <p role="alert" className="notice error">
          {problem}
        </p>
      )}
    </form>
  );
}

/** Tracked time per day of the period, every day listed (a day with nothing shows 0). */
function ByDay({ range, rows }: { range: Range; rows: SummaryRow[] }) {
  const byDay = new Map(rows.map((r) => [r.group.day, r]));
  const most = Math.max(1, ...rows.map((r) => r.tracked_seconds));
  return (
    <table className="list">
      <caption>Tracked time by day</caption>
      <thead>
        <tr>
          <th scope="col">Day</th>
          <th scope="col">Tracked</th>
          <th scope="col">Sessions</th>
          <th scope="col">Events outside sessions</th>
        </tr>
      </thead>
      <tbody>
        {daysOf(range).map((day) => {
          const row = byDay.get(day);
          const tracked = row?.tracked_seconds ?? 0;
          return (
            <tr key={day}>
              <th scope="row">{longDate(day)}</th>
              <td>
                <span className="bar" aria-hidden="true" style={{ inlineSize: `${Math.round((tracked / most) * 100)}%` }} />
                {hours(tracked)}
              </td>
              <td>{row?.session_count ?? 0}</td>
              <td>{row?.outside_session_event_count ?? 0}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** One row per group of a single key (work type, member kind), with what the group means in words. */
function ByGroup({ caption, rows, label }: { caption: string; rows: SummaryRow[]; label: (row: SummaryRow) => string }) {
  if (rows.length === 0) return <p className="muted">Nothing in this period.</p>;
  return (
    <table className="list">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Group</th>
          <th scope="col">Tracked</th>
          <th scope="col">Sessions</th>
          <th scope="col">Linked events</th>
          <th scope="col">Events outside sessions</th>
          <th scope="col">Spend</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={label(row)}>
            <th scope="row">{label(row)}</th>
            <td>{hours(row.tracked_seconds)}</td>
            <td>{row.session_count}</td>
            <td>{row.linked_event_count}</td>
            <td>{row.outside_session_event_count}</td>
            <td>{dollars(row.usage_cost)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Totals({ totals }: { totals: SummaryMetrics }) {
  const items: Array<[string, string]> = [
    ['Tracked', hours(totals.tracked_seconds)],
    ['Paused', hours(totals.paused_seconds)],
    ['Sessions', number(totals.session_count)],
    ['Events in sessions', number(totals.linked_event_count)],
    ['Events outside any session', number(totals.outside_session_event_count)],
    ['Spend', dollars(totals.usage_cost)],
    ['Input tokens', number(totals.input_tokens)],
    ['Output tokens', number(totals.output_tokens)],
  ];
  return (
    <dl className="totals">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A report section: loading, a failure with "Try again", or its content. */
function Part({
  title,
  query,
  enabled,
  children,
}: {
  title: string;
  query: SummaryQuery;
  enabled: boolean;
  children: (summary: Summary) => ReactNode;
}) {
  const summary = useSummary(query, enabled);
  return (
    <Section title={title}>
      {summary.isPending && <Loading what={title.toLowerCase()} />}
      {summary.isError && <ErrorNotice error={summary.error} onRetry={() => void summary.refetch()} />}
      {summary.data && children(summary.data)}
    </Section>
  );
}

/** D-44 Reports over D-50 … D-52: a period's totals and spend, by day, by work type, people against agents, and the CSV. */
export function Reports() {
  const me = useMe();
  const timeZone = me.data?.timezone ?? 'UTC';
  const today = dateIn(Date.now(), timeZone);
  const [chosen, setChosen] = useState<Range | null>(null);
  const range = chosen ?? weekOf(today);
  const [csv, setCsv] = useState<{ busy: boolean; error: string; said: string }>({ busy: false, error: '', said: '' });
  const base = { from: range.from, to: range.to, tz: timeZone };
  const ready = me.isSuccess;

  const download = async (): Promise<void> => {
    setCsv({ busy: true, error: '', said: '' });
    try {
      const blob = await fetchSummaryCsv({ ...base, group_by: ['day', 'work_type'] });
      saveBlob(blob, `worktrack-summary-${range.from}-to-${range.to}.csv`);
      setCsv({ busy: false, error: '', said: 'The CSV file is downloaded.' });
    } catch (err) {
      setCsv({ busy: false, error: sentenceFor(err), said: '' });
    }
  };

  if (me.isPending) return <Loading what="reports" />;
  if (me.isError) return <ErrorNotice error={me.error} onRetry={() => void me.refetch()} />;
  const manager = me.data.role === 'owner' || me.data.role === 'admin';
  return (
    <>
      <h1>Reports</h1>
      <p className="muted">
        {manager ? 'Your whole workspace' : 'Your own work'}, from {longDate(range.from)} to {longDate(range.to)}, in {timeZone} time.
      </p>
      <PeriodPicker key={`${range.from}:${range.to}`} today={today} range={range} onChange={setChosen} />
      <div className="actions">
        <button type="button" onClick={() => void download()} disabled={csv.busy}>
          Download CSV
        </button>
        <span role="status">{csv.said}</span>
      </div>
      {csv.error && (
        <p role="alert" className="notice error">
          {csv.error}
        </p>
      )}
      <Part title="Summary" query={{ ...base, group_by: ['day'] }} enabled={ready}>
        {(s) => (
          <>
            <Totals totals={s.meta.totals} />
            <ByDay range={range} rows={s.data} />
          </>
        )}
      </Part>
      <Part title="Intentional and reactive work" query={{ ...base, group_by: ['work_type'] }} enabled={ready}>
        {(s) => (
          <ByGroup
            caption="By work type"
            rows={s.data}
            label={(r) => (r.group.work_type ? (WORK_TYPES[r.group.work_type] ?? r.group.work_type) : 'Outside any session')}
          />
        )}
      </Part>
      <Part title="People and agents" query={{ ...base, group_by: ['member_kind'] }} enabled={ready}>
        {(s) => (
          <ByGroup caption="Human and agent work" rows={s.data} label={(r) => (r.group.member_kind === 'agent' ? 'Agents' : 'People')} />
        )}
      </Part>
    </>
  );
}
