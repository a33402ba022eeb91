import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@worktrack/sdk';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, Loading, Section, SelectField, ShownOnce } from '../../components/ui';
import { api, unwrap } from '../../lib/api-client';
import { parseError } from '../../lib/errors';

type Token = components['schemas']['TokenBody'] & { expires_at?: string | null };

const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : 'never');

/** D-10 / D-43: create (name, scope, expiry), the token once with a copy button, the list with last use, revoke. */
export function ApiTokens() {
  const client = useQueryClient();
  const tokens = useQuery({ queryKey: ['tokens'], queryFn: () => unwrap(api.GET('/tokens')) });
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'full' | 'report_only'>('full');
  const [days, setDays] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/tokens', { body: { name: name.trim(), scope, ...(days ? { expires_in_days: Number(days) } : {}) } })),
    onSuccess: (body) => {
      setCreated(body.token);
      setName('');
      void client.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => {
      const result = await api.DELETE('/tokens/{token_id}', { params: { path: { token_id: id } } });
      if (!result.response.ok) throw parseError(result.response.status, result.error);
    },
    onSettled: () => void client.invalidateQueries({ queryKey: ['tokens'] }),
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setCreated(null);
    create.mutate();
  };
  const rows: Token[] = tokens.data ?? [];
  const live = rows.filter((t) => !t.revoked_at);
  return (
    <Section title="API tokens">
      <form onSubmit={submit}>
        <Field label="Token name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <div className="row">
          <SelectField label="Scope" value={scope} onChange={(e) => setScope(e.target.value as 'full' | 'report_only')}>
            <option value="full">Full: acts as you in everything</option>
            <option value="report_only">Report only: its own sessions and events</option>
          </SelectField>
          <Field
            label="Expires after (days)"
            type="number"
            min={1}
            max={365}
            value={days}
            onChange={(e) => setDays(e.target.value)}
            hint="Empty: never."
          />
        </div>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create token
        </button>
        <ErrorNotice error={create.error} />
      </form>
      {created && <ShownOnce name="New token" value={created} />}
      {tokens.isPending && <Loading what="tokens" />}
      {tokens.isError && <ErrorNotice error={tokens.error} onRetry={() => void tokens.refetch()} />}
      {tokens.isSuccess && (
        <table className="list">
          <caption>Your tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scope</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {live.map((t) => (
              <tr key={t.token_id}>
                <td>{t.name}</td>
                <td>{t.scope === 'full' ? 'Full' : 'Report only'}</td>
                <td>{when(t.last_used_at)}</td>
                <td>{when(t.expires_at)}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => revoke.mutate(t.token_id)}
                    disabled={revoke.isPending}
                    aria-describedby={`tok-${t.token_id}`}
                  >
                    Revoke
                  </button>
                  <span id={`tok-${t.token_id}`} className="visually-hidden">
                    {t.name}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorNotice error={revoke.error} />
    </Section>
  );
}
