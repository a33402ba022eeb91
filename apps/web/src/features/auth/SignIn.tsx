import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field } from '../../components/ui';
import { ApiError } from '../../lib/errors';
import { navigate, safeReturnTo } from '../../lib/router';
import { login, providerStartUrl, signInMethods } from './api';

/**
 * D-44 sign-in: "Email", "Password", "Sign in"; the second factor asks for
 * "Authentication code" (or a recovery code). D-41: one "Sign in with <name>"
 * per provider; no password form where password sign-in is off.
 */
export function SignIn({ returnTo }: { returnTo: string | null }) {
  const target = safeReturnTo(returnTo);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [secondFactor, setSecondFactor] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const methods = useQuery({ queryKey: ['sign-in-methods'], queryFn: signInMethods, retry: false, staleTime: Infinity });
  const providers = methods.data?.providers ?? [];
  const passwordLogin = methods.data?.passwordLogin ?? true;

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const extra = secondFactor ? (useRecovery ? { recovery_code: code.trim() } : { totp_code: code.trim() }) : {};
      await login({ email, password, ...extra });
      navigate(target, { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'SECOND_FACTOR_REQUIRED' && !secondFactor) setSecondFactor(true);
      else setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="narrow">
      <h1>Sign in to worktrack</h1>
      {passwordLogin && (
        <form onSubmit={(e) => void submit(e)} className="card">
          <Field label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <Field
            label="Password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          {secondFactor && (
            <>
              <p role="status">Enter the code from your authenticator app to finish signing in.</p>
              {useRecovery ? (
                <Field label="Recovery code" autoComplete="off" required value={code} onChange={(e) => setCode(e.target.value)} />
              ) : (
                <Field
                  label="Authentication code"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  pattern="[0-9]{6}"
                  required
                  autoFocus
                  value={code}
                  onChange={(e) => setCode(e.target.value)}
                />
              )}
              <button type="button" className="link" onClick={() => setUseRecovery(!useRecovery)}>
                {useRecovery ? 'Use an authentication code instead' : 'Use a recovery code instead'}
              </button>
            </>
          )}
          <ErrorNotice error={error} />
          <button type="submit" className="primary" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {providers.length > 0 && (
        <nav aria-label="Single sign-on" className="card">
          <h2>{passwordLogin ? 'Or continue with' : 'Continue with your organisation’s account'}</h2>
          <ul className="plain">
            {providers.map((p) => (
              <li key={p.id}>
                <a className="button" href={providerStartUrl(p.id, target)}>
                  Sign in with {p.name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {!passwordLogin && methods.isSuccess && providers.length === 0 && (
        <p role="alert">Signing in is not set up here yet: ask the person who runs worktrack.</p>
      )}
    </main>
  );
}
