import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, Section, SelectField } from '../../components/ui';
import { api, unwrap } from '../../lib/api-client';
import { timeZones, WEEKDAYS, type Weekday } from '../../lib/time';
import type { Member } from '../today/api';

const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

type Hours = Member['working_hours'];

/** D-13: name, time zone and working hours per weekday (one interval a day here; empty times: a day off). */
export function Profile({ me }: { me: Member }) {
  const client = useQueryClient();
  const [name, setName] = useState(me.display_name);
  const [timezone, setTimezone] = useState(me.timezone);
  const [hours, setHours] = useState<Hours>(me.working_hours);
  const save = useMutation({
    mutationFn: () => unwrap(api.PATCH('/me', { body: { display_name: name.trim(), timezone, working_hours: hours } })),
    onSuccess: (member) => client.setQueryData(['me'], member),
  });
  const setDay = (day: Weekday, which: 'start' | 'end', value: string): void => {
    const current = hours[day][0] ?? { start: '09:00', end: '17:00' };
    const next = { ...current, [which]: value };
    setHours({ ...hours, [day]: next.start && next.end ? [next] : [] });
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };
  const zones = timeZones();
  return (
    <Section title="Profile">
      <form onSubmit={submit}>
        <Field label="Name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <SelectField label="Time zone" value={timezone} onChange={(e) => setTimezone(e.target.value)}>
          {(zones.includes(timezone) ? zones : [timezone, ...zones]).map((tz) => (
            <option key={tz}>{tz}</option>
          ))}
        </SelectField>
        <fieldset>
          <legend>Working hours</legend>
          {WEEKDAYS.map((day) => {
            const interval = hours[day][0];
            return (
              <div className="row hours" key={day}>
                <span className="day">{DAY_NAMES[day]}</span>
                <Field
                  label={`${DAY_NAMES[day]} from`}
                  type="time"
                  value={interval?.start ?? ''}
                  onChange={(e) => setDay(day, 'start', e.target.value)}
                />
                <Field
                  label={`${DAY_NAMES[day]} until`}
                  type="time"
                  value={interval?.end ?? ''}
                  onChange={(e) => setDay(day, 'end', e.target.value)}
                />
                {interval && (
                  <button type="button" className="small" onClick={() => setHours({ ...hours, [day]: [] })}>
                    {`Day off on ${DAY_NAMES[day]}`}
                  </button>
                )}
              </div>
            );
          })}
        </fieldset>
        <button type="submit" className="primary" disabled={save.isPending}>
          Save profile
        </button>
        {save.isSuccess && <p role="status">Saved.</p>}
        <ErrorNotice error={save.error} />
      </form>
    </Section>
  );
}
