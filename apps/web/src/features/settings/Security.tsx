import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, Loading, Section, ShownOnce } from '../../components/ui';
import { api, unwrap } from '../../lib/api-client';

function Password() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => unwrap(api.POST('/me/password', { body: { current_password: current, new_password: next } })),
    onSuccess: () => {
      setCurrent('');
      setNext('');
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    change.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Change password">
      <h3>Password</h3>
      <Field
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
      />
      <Field
        label="New password"
        type="password"
        autoComplete="new-password"
        minLength={12}
        maxLength={256}
        required
        hint="At least 12 characters. Your other browsers are signed out."
        value={next}
        onChange={(e) => setNext(e.target.value)}
      />
      <button type="submit" disabled={change.isPending}>
        Change password
      </button>
      {change.isSuccess && <p role="status">Password changed.</p>}
      <ErrorNotice error={change.error} />
    </form>
  );
}

/** D-42: enrol (secret and otpauth URI), confirm with a code (recovery codes once), turn off with a code. */
function TwoFactor() {
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [offCode, setOffCode] = useState('');
  const [done, setDone] = useState('');
  const start = useMutation({
    mutationFn: () => unwrap(api.POST('/me/totp')),
    onSuccess: (enrolment) => setEnrolment(enrolment),
  });
  const confirm = useMutation({
    mutationFn: () => unwrap(api.POST('/me/totp/confirm', { body: { code: code.trim() } })),
    onSuccess: (body) => {
      setRecovery(body.recovery_codes);
      setEnrolment(null);
      setCode('');
    },
  });
  const off = useMutation({
    mutationFn: () => unwrap(api.DELETE('/me/totp', { body: { code: offCode.trim() } })),
    onSuccess: () => {
      setOffCode('');
      setDone('Two-factor authentication is off.');
    },
  });
  return (
    <div>
      <h3>Two-factor authentication</h3>
      {!enrolment && (
        <button type="button" onClick={() => start.mutate()} disabled={start.isPending}>
          Set up two-factor authentication
        </button>
      )}
      <ErrorNotice error={start.error} />
      {enrolment && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            confirm.mutate();
          }}
        >
          <p>Add this key to your authenticator app, then enter the code it shows.</p>
          <ShownOnce name="Two-factor key" value={enrolment.secret} note="Key (or open the link below on your phone):" />
          <p>
            <a href={enrolment.otpauth_uri}>Open in an authenticator app</a>
          </p>
          <Field
            label="Authentication code"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
          <button type="submit" disabled={confirm.isPending}>
            Turn on
          </button>
          <ErrorNotice error={confirm.error} />
        </form>
      )}
      {recovery && (
        <div className="once">
          <p>Two-factor authentication is on. Keep these recovery codes somewhere safe: each works once, and they are shown only now.</p>
          <ShownOnce name="Recovery codes" value={recovery.join('\n')} />
        </div>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          off.mutate();
        }}
      >
        <Field
          label="Code to turn two-factor off"
          inputMode="numeric"
          autoComplete="one-time-code"
          value={offCode}
          onChange={(e) => setOffCode(e.target.value)}
        />
        <button type="submit" disabled={off.isPending || !offCode}>
          Turn off two-factor
        </button>
        {done && <p role="status">{done}</p>}
        <ErrorNotice error={off.error} />
      </form>
    </div>
  );
}

interface BrowserSession {
  sid: string;
  created_at: string;
  last_used_at: string | null;
  user_agent: string | null;
  current: boolean;
}

/** D-40: the member's browser sessions; ending one signs that browser out. */
function BrowserSessions() {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: ['browser-sessions'],
    queryFn: (): Promise<BrowserSession[]> => unwrap(api.GET('/auth/sessions')),
  });
  const end = useMutation({
    mutationFn: (sid: string) => unwrap(api.DELETE('/auth/sessions/{sid}', { params: { path: { sid } } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['browser-sessions'] }),
  });
  return (
    <div>
      <h3>Signed-in browsers</h3>
      {list.isPending && <Loading what="browsers" />}
      {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
      {list.data && (
        <ul className="plain">
          {list.data.map((s) => (
            <li key={s.sid}>
              {s.user_agent ?? 'Unknown browser'} · since {new Date(s.created_at).toLocaleString()}
              {s.current ? (
                <strong> (this browser)</strong>
              ) : (
                <button
                  type="button"
                  className="small"
                  onClick={() => end.mutate(s.sid)}
                  aria-label={`Sign out ${s.user_agent ?? 'browser'} since ${new Date(s.created_at).toLocaleString()}`}
                >
                  Sign out
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorNotice error={end.error} />
    </div>
  );
}

export function Security() {
  return (
    <Section title="Security">
      <Password />
      <TwoFactor />
      <BrowserSessions />
    </Section>
  );
}
