import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, SelectField } from '../../components/ui';
import { navigate } from '../../lib/router';
import { timeZones } from '../../lib/time';
import { acceptInvite } from './api';

/** D-38: /accept-invite?token=… sets a password (12 to 256 characters, D-39) and signs the new member in. */
export function AcceptInvite({ token }: { token: string | null }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [timezone, setTimezone] = useState(Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  if (!token) {
    return (
      <main id="main" className="narrow">
        <h1>Accept your invitation</h1>
        <p role="alert">This link is incomplete. Open the whole link from your invitation email.</p>
      </main>
    );
  }

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await acceptInvite({ token, password, ...(name.trim() ? { display_name: name.trim() } : {}), timezone });
      navigate('/', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="narrow">
      <h1>Accept your invitation</h1>
      <form onSubmit={(e) => void submit(e)} className="card">
        <Field label="Your name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          minLength={12}
          maxLength={256}
          required
          hint="At least 12 characters."
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <SelectField label="Time zone" value={timezone} onChange={(e) => setTimezone(e.target.value)}>
          {timeZones().map((tz) => (
            <option key={tz}>{tz}</option>
          ))}
        </SelectField>
        <ErrorNotice error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Join the workspace
        </button>
      </form>
    </main>
  );
}
