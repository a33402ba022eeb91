import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, Loading, Section, SelectField, ShownOnce } from '../../components/ui';
import { api, unwrap } from '../../lib/api-client';
import { isActive, useTeammates } from '../plate/api';
import type { Member } from '../today/api';

interface Invite {
  invite_id: string;
  email: string;
  role: string;
  expires_at: string;
  accept_url?: string;
}
type Role = 'owner' | 'admin' | 'member';

/** D-38 invites and the members of the workspace (role, capacity, deactivate), for owners and admins. */
export function Members({ me }: { me: Member }) {
  const client = useQueryClient();
  const members = useTeammates();
  const invites = useQuery({ queryKey: ['invites'], queryFn: (): Promise<Invite[]> => unwrap(api.GET('/invites')) });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [link, setLink] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: () => unwrap(api.POST('/invites', { body: { email: email.trim(), role } })),
    onSuccess: (created) => {
      setLink(created.accept_url ?? null);
      setEmail('');
      void client.invalidateQueries({ queryKey: ['invites'] });
    },
  });
  const withdraw = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/invites/{invite_id}', { params: { path: { invite_id: id } } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['invites'] }),
  });
  const update = useMutation({
    mutationFn: (input: { id: string; role?: Role; plate_capacity?: number }) =>
      unwrap(
        api.PATCH('/members/{member_id}', {
          params: { path: { member_id: input.id } },
          body: { role: input.role, plate_capacity: input.plate_capacity },
        }),
      ),
    onSettled: () => void client.invalidateQueries({ queryKey: ['members'] }),
  });
  const deactivate = useMutation({
    mutationFn: (id: string) => unwrap(api.POST('/members/{member_id}/deactivate', { params: { path: { member_id: id } } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['members'] }),
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setLink(null);
    invite.mutate();
  };
  const roles: Role[] = me.role === 'owner' ? ['member', 'admin', 'owner'] : ['member', 'admin'];
  return (
    <Section title="Members">
      <form onSubmit={submit}>
        <div className="row">
          <Field label="Invite by email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {roles.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </SelectField>
        </div>
        <button type="submit" disabled={invite.isPending}>
          Invite
        </button>
        <ErrorNotice error={invite.error} />
      </form>
      {link && <ShownOnce name="Invite link" value={link} note="Send this link to the person you invited: it works once." />}
      {invites.data && invites.data.length > 0 && (
        <>
          <h3>Pending invites</h3>
          <ul className="plain">
            {invites.data.map((i) => (
              <li key={i.invite_id}>
                {i.email} ({i.role}), until {new Date(i.expires_at).toLocaleString()}{' '}
                <button type="button" className="small" onClick={() => withdraw.mutate(i.invite_id)}>
                  Withdraw invite for {i.email}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      <ErrorNotice error={invites.error ?? withdraw.error} />
      {members.isPending && <Loading what="the members" />}
      <ErrorNotice error={members.error} onRetry={() => void members.refetch()} />
      {members.data && members.data.length > 0 && (
        <table className="list">
          <caption>Members</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Items a day</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.map((m) => (
              <tr key={m.member_id}>
                <td>
                  {m.display_name} {m.kind === 'agent' && <span className="tag">agent</span>}
                  {!isActive(m) && <span className="tag">deactivated</span>}
                  {m.email && <div className="muted">{m.email}</div>}
                </td>
                <td>
                  <select
                    aria-label={`Role of ${m.display_name}`}
                    value={m.role ?? 'member'}
                    disabled={!isActive(m) || m.kind === 'agent'}
                    onChange={(e) => update.mutate({ id: m.member_id, role: e.target.value as Role })}
                  >
                    {(['member', 'admin', 'owner'] as const).map((r) => (
                      <option key={r} disabled={!roles.includes(r)}>
                        {r}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  <input
                    aria-label={`Items a day for ${m.display_name}`}
                    type="number"
                    min={0}
                    max={1000}
                    defaultValue={m.plate_capacity}
                    disabled={!isActive(m)}
                    onBlur={(e) => {
                      const value = Number(e.target.value);
                      if (e.target.value !== '' && Number.isInteger(value) && value !== m.plate_capacity)
                        update.mutate({ id: m.member_id, plate_capacity: value });
                    }}
                  />
                </td>
                <td>{m.last_seen_at ? new Date(m.last_seen_at).toLocaleString() : 'Never'}</td>
                <td>
                  {isActive(m) && m.member_id !== me.member_id && (
                    <button type="button" className="small danger" onClick={() => deactivate.mutate(m.member_id)}>
                      Deactivate {m.display_name}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorNotice error={update.error ?? deactivate.error} />
    </Section>
  );
}
