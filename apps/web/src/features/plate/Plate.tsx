import { useMutation, useQueries, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, Loading, Section, SelectField } from '../../components/ui';
import { api, unwrap } from '../../lib/api-client';
import { announce } from '../../lib/live';
import { addDays, dateIn, longDate, weekdayOf } from '../../lib/time';
import { useMe, type Member } from '../today/api';
import { isActive, landingSentence, useTeammates, type PlateAssignment, type PlateDay } from './api';

/** Today and the next working days (days with working hours, D-33), up to `count` of them within two weeks. */
export function plateDays(today: string, workingHours: Member['working_hours'], count: number): string[] {
  const days = [today];
  for (let i = 1; i <= 14 && days.length < count; i++) {
    const day = addDays(today, i);
    if ((workingHours[weekdayOf(day)] ?? []).length > 0) days.push(day);
  }
  return days;
}

function Day({ date, today, day }: { date: string; today: string; day: PlateDay | undefined }) {
  const client = useQueryClient();
  const done = useMutation({
    mutationFn: (id: string) => unwrap(api.PATCH('/plate/items/{item_id}', { params: { path: { item_id: id } }, body: { done: true } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['plate'] });
      announce(['plate']);
    },
  });
  if (!day) return null;
  const { capacity, active_count, items } = day;
  return (
    <Section title={date === today ? `Today, ${longDate(date)}` : longDate(date)}>
      <p>
        <meter min={0} max={capacity} value={active_count} aria-label={`Capacity used on ${longDate(date)}`} /> {active_count} of {capacity}{' '}
        taken
      </p>
      {items.length === 0 ? (
        <p className="muted">Nothing on the plate.</p>
      ) : (
        <ul className="plain">
          {items.map((item) => (
            <li key={item.plate_item_id} className={item.done ? 'done' : undefined}>
              {item.title}{' '}
              {!item.done && (
                <button
                  type="button"
                  className="small"
                  onClick={() => done.mutate(item.plate_item_id)}
                  aria-label={`Mark "${item.title}" done`}
                >
                  Done
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorNotice error={done.error} />
    </Section>
  );
}

function Assign({ me, today }: { me: Member; today: string }) {
  const client = useQueryClient();
  const teammates = useTeammates();
  const [assignee, setAssignee] = useState(me.member_id);
  const [title, setTitle] = useState('');
  const [date, setDate] = useState('');
  const [said, setSaid] = useState('');
  const people = [
    { member_id: me.member_id, display_name: `${me.display_name} (you)` },
    ...(teammates.data ?? []).filter((t) => t.member_id !== me.member_id && isActive(t)),
  ];
  const assign = useMutation({
    mutationFn: (): Promise<PlateAssignment> =>
      unwrap(api.POST('/plate/assign', { body: { assignee_id: assignee, title: title.trim(), ...(date ? { plate_date: date } : {}) } })),
    onSuccess: (result) => {
      const who = people.find((p) => p.member_id === result.assignee_id)?.display_name.replace(' (you)', '') ?? 'your teammate';
      setSaid(landingSentence(result, date || (assignee === me.member_id ? today : result.plate_date), who));
      setTitle('');
      void client.invalidateQueries({ queryKey: ['plate'] });
      announce(['plate']);
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setSaid('');
    assign.mutate();
  };
  return (
    <Section title="Assign to a teammate">
      <form onSubmit={submit}>
        <SelectField label="Teammate" value={assignee} onChange={(e) => setAssignee(e.target.value)}>
          {people.map((p) => (
            <option key={p.member_id} value={p.member_id}>
              {p.display_name}
              {'kind' in p && p.kind === 'agent' ? ' (agent)' : ''}
            </option>
          ))}
        </SelectField>
        {teammates.isError && <ErrorNotice error={teammates.error} onRetry={() => void teammates.refetch()} />}
        <Field label="Item" required maxLength={500} value={title} onChange={(e) => setTitle(e.target.value)} />
        <Field label="Day" type="date" min={today} value={date} onChange={(e) => setDate(e.target.value)} hint="Empty: their today." />
        <button type="submit" className="primary" disabled={assign.isPending}>
          Assign
        </button>
        <p role="status" className="landing">
          {said}
        </p>
        <ErrorNotice error={assign.error} />
      </form>
    </Section>
  );
}

/** D-44 Plate: today and the next working days with the capacity used, and assigning with the overflow said (D-33). */
export function Plate() {
  const me = useMe();
  const timeZone = me.data?.timezone ?? 'UTC';
  const today = dateIn(Date.now(), timeZone);
  const days = me.data ? plateDays(today, me.data.working_hours, 4) : [];
  const results = useQueries({
    queries: days.map((date) => ({
      queryKey: ['plate', date],
      queryFn: async () => {
        const result = await api.GET('/plate', { params: { query: { date, limit: 100 } } });
        return unwrap(Promise.resolve(result));
      },
      refetchInterval: 30_000,
    })),
  });
  if (me.isPending) return <Loading what="your plate" />;
  if (me.isError) return <ErrorNotice error={me.error} onRetry={() => void me.refetch()} />;
  const failed = results.find((r) => r.isError);
  return (
    <>
      <h1>Plate</h1>
      {failed && <ErrorNotice error={failed.error} onRetry={() => results.forEach((r) => void r.refetch())} />}
      {results.some((r) => r.isPending) && <Loading what="the plate" />}
      <div className="days">
        {days.map((date, i) => (
          <Day key={date} date={date} today={today} day={results[i]?.data} />
        ))}
      </div>
      <Assign me={me.data} today={today} />
    </>
  );
}
