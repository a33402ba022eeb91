import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@worktrack/sdk';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, Loading, Section, SelectField, ShownOnce } from '../../components/ui';
import { api, unwrap } from '../../lib/api-client';
import { parseError } from '../../lib/errors';

type Connector = components['schemas']['ConnectorBody'];
type Kind = Connector['kind'];

/** A webhook secret for GitHub, made in the browser (32 random bytes, hex). */
function newSecret(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('');
}

function Deliveries({ id }: { id: string }) {
  const list = useQuery({
    queryKey: ['deliveries', id],
    queryFn: () =>
      unwrap(api.GET('/connectors/{connector_id}/deliveries', { params: { path: { connector_id: id }, query: { limit: 10 } } })),
  });
  if (list.isPending) return <Loading what="deliveries" />;
  if (list.isError) return <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />;
  if (list.data.length === 0) return <p className="muted">No deliveries yet.</p>;
  return (
    <ul className="plain">
      {list.data.map((d) => (
        <li key={d.delivery_id}>
          {new Date(d.received_at).toLocaleString()} · {d.provider_event} · {d.state} · {d.events_accepted} events
        </li>
      ))}
    </ul>
  );
}

/** D-36 connectors: GitHub and Slack hooks (URL and secret shown once), calendar feeds; recent deliveries. */
export function Connectors() {
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['connectors'], queryFn: () => unwrap(api.GET('/connectors')) });
  const [kind, setKind] = useState<Kind>('github');
  const [name, setName] = useState('');
  const [extra, setExtra] = useState('');
  const [created, setCreated] = useState<{ url: string | null; secret: string | null } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async () => {
      const secret = kind === 'github' ? newSecret() : kind === 'slack' ? extra.trim() : null;
      const body =
        kind === 'calendar'
          ? { kind, name: name.trim(), feed_url: extra.trim() }
          : { kind, name: name.trim(), ...(secret ? { secret } : {}) };
      const connector = await unwrap(api.POST('/connectors', { body }));
      return { connector, secret: kind === 'github' ? secret : null };
    },
    onSuccess: ({ connector, secret }) => {
      setCreated({ url: connector.hook_path ? `${location.origin}${connector.hook_path}` : null, secret });
      setName('');
      setExtra('');
      void client.invalidateQueries({ queryKey: ['connectors'] });
    },
  });
  const remove = useMutation({
    mutationFn: async (id: string) => {
      const result = await api.DELETE('/connectors/{connector_id}', { params: { path: { connector_id: id } } });
      if (!result.response.ok) throw parseError(result.response.status, result.error);
    },
    onSettled: () => void client.invalidateQueries({ queryKey: ['connectors'] }),
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setCreated(null);
    create.mutate();
  };
  return (
    <Section title="Connectors">
      <form onSubmit={submit}>
        <div className="row">
          <SelectField label="Connector kind" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            <option value="github">GitHub</option>
            <option value="slack">Slack</option>
            <option value="calendar">Calendar (ICS feed)</option>
          </SelectField>
          <Field label="Connector name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        {kind === 'slack' && (
          <Field label="Slack signing secret" type="password" required value={extra} onChange={(e) => setExtra(e.target.value)} />
        )}
        {kind === 'calendar' && <Field label="Feed URL" type="url" required value={extra} onChange={(e) => setExtra(e.target.value)} />}
        <button type="submit" disabled={create.isPending}>
          Add connector
        </button>
        <ErrorNotice error={create.error} />
      </form>
      {created?.url && <ShownOnce name="Hook URL" value={created.url} note="Paste this address into the provider's webhook settings." />}
      {created?.secret && <ShownOnce name="Hook secret" value={created.secret} />}
      {list.isPending && <Loading what="connectors" />}
      {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
      {list.data && (
        <ul className="plain">
          {list.data.map((c) => (
            <li key={c.connector_id}>
              <strong>{c.name}</strong> · {c.kind} · {c.status === 'active' ? 'working' : `not working: ${c.last_error ?? 'unknown'}`}{' '}
              <button
                type="button"
                className="small"
                aria-expanded={open === c.connector_id}
                onClick={() => setOpen(open === c.connector_id ? null : c.connector_id)}
              >
                Deliveries of {c.name}
              </button>{' '}
              <button type="button" className="small" onClick={() => remove.mutate(c.connector_id)}>
                Remove {c.name}
              </button>
              {open === c.connector_id && <Deliveries id={c.connector_id} />}
            </li>
          ))}
        </ul>
      )}
      <ErrorNotice error={remove.error} />
    </Section>
  );
}
