/**
 * The browser's credential (D-40): the access JWT lives in memory only, never
 * in storage. A new one comes from POST /v1/auth/refresh, which sends the
 * HttpOnly refresh cookie and rotates it. Refreshes are serialised across the
 * tabs of this origin (Web Locks), because two refreshes racing with the same
 * cookie count as reuse and end the browser session; the tab that refreshed
 * shares the new access token with the others over a BroadcastChannel.
 */

export interface SignedIn {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  member?: unknown;
}

type Listener = () => void;

const CHANNEL = 'worktrack-auth';
/** Refresh this long before the access token expires. */
const EARLY_MS = 60_000;

let accessToken: string | null = null;
let expiresAt = 0;
/** The member a sign-in or refresh answered with (D-40), so the first page need not ask GET /v1/me again. */
let member: unknown = null;
let inFlight: Promise<string | null> | null = null;
const listeners = new Set<Listener>();
const channel: BroadcastChannel | null = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;

channel?.addEventListener('message', (event: MessageEvent<{ type: string; token?: string; expiresAt?: number }>) => {
  if (event.data.type === 'token' && event.data.token && event.data.expiresAt) setToken(event.data.token, event.data.expiresAt, false);
  if (event.data.type === 'signed-out') clearToken(false);
});

function notify(): void {
  for (const listener of listeners) listener();
}

function setToken(token: string, at: number, broadcast: boolean): void {
  accessToken = token;
  expiresAt = at;
  if (broadcast) channel?.postMessage({ type: 'token', token, expiresAt: at });
  notify();
}

export function clearToken(broadcast = true): void {
  const had = accessToken !== null;
  accessToken = null;
  member = null;
  expiresAt = 0;
  if (broadcast) channel?.postMessage({ type: 'signed-out' });
  if (had || broadcast) notify();
}

/** Keeps the access token of a successful sign-in (login, invite, refresh). */
export function acceptSignIn(body: SignedIn): void {
  if (body.member) member = body.member;
  setToken(body.access_token, Date.now() + body.expires_in * 1000, true);
}

/** The member of the latest sign-in or refresh in this tab, when it said. */
export function signedInMember(): unknown {
  return member;
}

export function currentToken(): string | null {
  return accessToken !== null && Date.now() < expiresAt - EARLY_MS ? accessToken : null;
}

export function isSignedIn(): boolean {
  return accessToken !== null;
}

export function subscribeAuth(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

async function refreshNow(rejected: string | null): Promise<string | null> {
  const fresh = currentToken();
  if (fresh && fresh !== rejected) return fresh; // another tab refreshed while this one waited for the lock
  let response: Response;
  try {
    response = await fetch(`${location.origin}/v1/auth/refresh`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    });
  } catch {
    return accessToken; // offline: keep what there is, the request will say it
  }
  if (!response.ok) {
    if (response.status === 401 || response.status === 403) clearToken();
    return null;
  }
  const body = (await response.json()) as { data: SignedIn };
  acceptSignIn(body.data);
  return body.data.access_token;
}

/** A fresh access token, refreshing it first when it is missing or about to expire; null when signed out. */
export function freshToken(): Promise<string | null> {
  const token = currentToken();
  if (token) return Promise.resolve(token);
  return refresh();
}

let pageCheck: Promise<string | null> | null = null;

/** The page load's first credential check (D-40): asked once, by whoever asks first, and shared. */
export function checkOnLoad(): Promise<string | null> {
  pageCheck ??= freshToken();
  return pageCheck;
}

/** One refresh at a time across this origin's tabs; `rejected` is a token the API just refused (a 401), never reused. */
export function refresh(rejected: string | null = null): Promise<string | null> {
  inFlight ??= (async () => {
    try {
      const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
      return locks ? await locks.request('worktrack-refresh', () => refreshNow(rejected)) : await refreshNow(rejected);
    } finally {
      inFlight = null;
    }
  })();
  return inFlight;
}

/** Test seam: forget everything. */
export function resetAuthForTests(): void {
  accessToken = null;
  member = null;
  expiresAt = 0;
  inFlight = null;
  pageCheck = null;
  listeners.clear();
}
