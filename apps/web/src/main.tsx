import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { prefetchToday } from './features/today/api';
import { checkOnLoad } from './lib/auth';
import { ApiError } from './lib/errors';
import { listenForChanges, refetchOnWake } from './lib/live';

const client = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal is final (it is said in words); no answer or a 503 is retried a little, then offered as "Try again".
      retry: (count, error) => (error instanceof ApiError ? error.retryable && count < 2 : count < 2),
      refetchOnWindowFocus: true,
      staleTime: 5_000,
    },
  },
});
// The access token (D-40; boot.ts asked for it before this code loaded), then Today's data before the first render needs it.
void checkOnLoad().then((token) => {
  if (token && (location.pathname === '/' || location.pathname === '/today')) prefetchToday(client);
});
listenForChanges(client);
refetchOnWake(client);

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
