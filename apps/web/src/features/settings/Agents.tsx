import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, Section, SelectField, ShownOnce } from '../../components/ui';
import { api, unwrap } from '../../lib/api-client';
import { isActive, useTeammates } from '../plate/api';

/** D-12: register an agent (owners and admins), its token shown once; the workspace's agents with when each was last seen. */
export function Agents() {
  const client = useQueryClient();
  const members = useTeammates();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'report_only' | 'full'>('report_only');
  const [token, setToken] = useState<string | null>(null);
  const register = useMutation({
    mutationFn: () => unwrap(api.POST('/agents', { body: { name: name.trim(), scope } })),
    onSuccess: (body) => {
      setToken(body.token);
      setName('');
      void client.invalidateQueries({ queryKey: ['members'] });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setToken(null);
    register.mutate();
  };
  const agents = (members.data ?? []).filter((m) => m.kind === 'agent');
  return (
    <Section title="Agents">
      <form onSubmit={submit}>
        <Field label="Agent name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <SelectField label="Agent scope" value={scope} onChange={(e) => setScope(e.target.value as 'report_only' | 'full')}>
          <option value="report_only">Report only</option>
          <option value="full">Full</option>
        </SelectField>
        <button type="submit" disabled={register.isPending}>
          Register agent
        </button>
        <ErrorNotice error={register.error} />
      </form>
      {token && <ShownOnce name="Agent token" value={token} />}
      <ErrorNotice error={members.error} onRetry={() => void members.refetch()} />
      {members.data && agents.length === 0 && <p className="muted">No agent yet.</p>}
      {agents.length > 0 && (
        <table className="list">
          <caption>Agents of the workspace</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {agents.map((a) => (
              <tr key={a.member_id}>
                <td>
                  {a.display_name}
                  {!isActive(a) && <span className="tag">deactivated</span>}
                </td>
                <td>{a.last_seen_at ? new Date(a.last_seen_at).toLocaleString() : 'Never'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
