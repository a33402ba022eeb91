import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { vi } from 'vitest';
import { apiServer, type Handler } from './server';

declare global {
  var jsdom: { reconfigure(options: { url: string }): void };
}

/**
 * Starts a loopback API for the test, makes it the page's origin, and loads
 * the app's modules afresh (the typed client reads the origin once).
 */
export async function withApi(routes: Record<string, Handler>) {
  const api = await apiServer(routes);
  globalThis.jsdom.reconfigure({ url: `${api.origin}/` });
  vi.resetModules();
  const auth = await import('../src/lib/auth');
  return { ...api, auth };
}

export function renderWithQuery(ui: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>);
}

export const signedIn = (auth: { acceptSignIn: (b: { access_token: string; token_type: 'Bearer'; expires_in: number }) => void }): void =>
  auth.acceptSignIn({ access_token: 'test-access-token', token_type: 'Bearer', expires_in: 600 });
