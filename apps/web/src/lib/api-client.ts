import createClient from 'openapi-fetch';
import type { paths } from '@worktrack/sdk';
import { ApiError, parseError } from './errors';
import { clearToken, freshToken, refresh } from './auth';

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when the API refuses the browser's credential for good (a 401 after a refresh): the app goes to sign-in. */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

const AUTH_PATHS = /^\/v1\/auth\/(login|refresh|accept-invite|logout|providers)/;

/**
 * Every request of the app: the access token as a bearer (D-40), one refresh
 * and retry on a 401, and an ApiError (status 0, UNAVAILABLE) when no answer
 * arrives at all.
 */
export async function apiFetch(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname;
  const open = AUTH_PATHS.test(path);
  const retry = request.clone();
  const token = open ? null : await freshToken();
  const send = async (req: Request, bearer: string | null): Promise<Response> => {
    if (bearer) req.headers.set('authorization', `Bearer ${bearer}`);
    try {
      return await fetch(req);
    } catch (err) {
      throw new ApiError(0, 'UNAVAILABLE', 'no answer', [], { cause: err });
    }
  };
  const response = await send(request, token);
  if (response.status !== 401 || open) return response;
  const renewed = await refresh(token);
  if (renewed === null) {
    clearToken();
    for (const listener of signedOutListeners) listener();
    return response;
  }
  const second = await send(retry, renewed);
  if (second.status === 401) {
    clearToken();
    for (const listener of signedOutListeners) listener();
  }
  return second;
}

/** The typed client (openapi-fetch over the types generated from the served document, libs/sdk). */
export const api = createClient<paths>({
  baseUrl: `${typeof location === 'undefined' ? 'http://localhost' : location.origin}/v1`,
  fetch: apiFetch,
});

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** `data` of a successful answer, or throws its ApiError. */
export async function unwrap<T>(call: Promise<Result<{ data: T }>>): Promise<T> {
  const result = await call;
  if (result.response.ok && result.data !== undefined) return result.data.data;
  throw parseError(result.response.status, result.error);
}

/**
 * Routes the served document does not describe yet (sign-in, invites:
 * D-38 … D-43), through the same credential handling.
 */
export async function request<T>(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<T> {
  const init: RequestInit = { method, headers: { accept }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await apiFetch(new Request(`${location.origin}/v1${path}`, init));
  if (response.status === 204) return undefined as T;
  if (accept !== 'application/json') {
    if (!response.ok) throw parseError(response.status, await response.json().catch(() => null));
    return (await response.text()) as T;
  }
  const parsed: unknown = await response.json().catch(() => null);
  if (!response.ok) throw parseError(response.status, parsed);
  return parsed as T;
}
