import { onlineManager, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { Loading } from '../components/ui';
import { onSignedOut } from '../lib/api-client';
import { isSignedIn, refresh, subscribeAuth } from '../lib/auth';
import { Link, navigate, useLocation } from '../lib/router';
import { AcceptInvite } from '../features/auth/AcceptInvite';
import { logout } from '../features/auth/api';
import { SignIn } from '../features/auth/SignIn';
import { Today } from '../features/today/Today';

const Sessions = lazy(() => import('../features/sessions/Sessions').then((m) => ({ default: m.Sessions })));
const Plate = lazy(() => import('../features/plate/Plate').then((m) => ({ default: m.Plate })));
const Reports = lazy(() => import('../features/reports/Reports').then((m) => ({ default: m.Reports })));
const Settings = lazy(() => import('../features/settings/Settings').then((m) => ({ default: m.Settings })));

/** Paths of the app (the gateway answers each with index.html: apps/gateway/src/http/web-app.ts). */
const PAGES: Record<string, () => ReactNode> = {
  '/': () => <Today />,
  '/today': () => <Today />,
  '/sessions': () => <Sessions />,
  '/plate': () => <Plate />,
  '/reports': () => <Reports />,
  '/settings': () => <Settings />,
};

type Status = 'checking' | 'in' | 'out';

/** Signed in, signed out, or still asking the refresh cookie (D-40). */
function useAuthStatus(): Status {
  const [status, setStatus] = useState<Status>(isSignedIn() ? 'in' : 'checking');
  useEffect(() => {
    const unsubscribe = subscribeAuth(() => setStatus(isSignedIn() ? 'in' : 'out'));
    if (!isSignedIn()) void refresh().then((token) => setStatus(token ? 'in' : 'out'));
    return unsubscribe;
  }, []);
  return status;
}

/** Sign-in, remembering the page to come back to (never sign-in itself, so return_to does not nest). */
function signInPath(): string {
  if (location.pathname === '/sign-in') return location.pathname + location.search;
  const here = location.pathname + location.search;
  return here === '/' ? '/sign-in' : `/sign-in?return_to=${encodeURIComponent(here)}`;
}

const subscribeOnline = (listener: () => void): (() => void) => {
  window.addEventListener('online', listener);
  window.addEventListener('offline', listener);
  return () => {
    window.removeEventListener('online', listener);
    window.removeEventListener('offline', listener);
  };
};

/**
 * Said while the browser is offline. Requests wait for the connection and go
 * out when it is back; "Try again" sends them now (a failure is then said
 * like any other, with its own "Try again").
 */
function OfflineNotice() {
  const online = useSyncExternalStore(subscribeOnline, () => navigator.onLine);
  const client = useQueryClient();
  if (online) return null;
  return (
    <div role="status" className="notice error">
      <p>You are offline. What you see may be out of date, and changes cannot be saved until the connection is back.</p>
      <button
        type="button"
        onClick={() => {
          onlineManager.setOnline(true);
          void client.refetchQueries({ type: 'active' });
        }}
      >
        Try again
      </button>
    </div>
  );
}

function Shell({ children }: { children: ReactNode }) {
  const main = useRef<HTMLElement>(null);
  const path = useLocation();
  const first = useRef(true);
  useEffect(() => {
    // A page change moves the focus to the page, as a full load would for a screen reader.
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [path]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">worktrack</span>
        <nav aria-label="Main">
          <ul>
            <li>
              <Link to="/today">Today</Link>
            </li>
            <li>
              <Link to="/sessions">Sessions</Link>
            </li>
            <li>
              <Link to="/plate">Plate</Link>
            </li>
            <li>
              <Link to="/reports">Reports</Link>
            </li>
            <li>
              <Link to="/settings">Settings</Link>
            </li>
          </ul>
        </nav>
        <button type="button" className="small" onClick={() => void logout().then(() => navigate('/sign-in'))}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <OfflineNotice />
        {children}
      </main>
    </>
  );
}

export function App() {
  const status = useAuthStatus();
  const location = useLocation();
  const [path, search] = location.split('?');
  const params = new URLSearchParams(search ?? '');

  useEffect(() => onSignedOut(() => navigate(signInPath(), { replace: true })), []);
  const needsSignIn = status === 'out' && path !== '/sign-in' && path !== '/accept-invite';
  useEffect(() => {
    if (needsSignIn) navigate(signInPath(), { replace: true });
  }, [needsSignIn]);

  if (path === '/accept-invite') return <AcceptInvite token={params.get('token')} />;
  if (status === 'checking') return <Loading what="worktrack" />;
  if (path === '/sign-in') {
    if (status === 'in') {
      return <Redirect to={params.get('return_to') ?? '/'} />;
    }
    return <SignIn returnTo={params.get('return_to')} />;
  }
  if (status !== 'in') return <Loading what="worktrack" />;
  const page = PAGES[path];
  return (
    <Shell>
      <Suspense fallback={<Loading what="the page" />}>
        {page ? (
          page()
        ) : (
          <>
            <h1>Page not found</h1>
            <p>
              There is no page here. <Link to="/today">Go to Today</Link>.
            </p>
          </>
        )}
      </Suspense>
    </Shell>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to.startsWith('/') && !to.startsWith('//') ? to : '/', { replace: true }), [to]);
  return null;
}
