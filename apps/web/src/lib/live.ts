import type { QueryClient } from '@tanstack/react-query';

/**
 * Keeps every tab of the app on the same page: a change made in one tab
 * (a session started, paused, stopped; a token created) is announced on a
 * BroadcastChannel, and the other tabs refetch what it touched. Changes made
 * elsewhere (the CLI, an agent) arrive by polling and on focus.
 */
const channel: BroadcastChannel | null = typeof BroadcastChannel === 'function' ? new BroadcastChannel('worktrack-data') : null;

export function announce(keys: string[]): void {
  channel?.postMessage({ type: 'changed', keys });
}

export function listenForChanges(client: QueryClient): () => void {
  if (!channel) return () => undefined;
  const onMessage = (event: MessageEvent<{ type: string; keys: string[] }>): void => {
    if (event.data.type !== 'changed') return;
    for (const key of event.data.keys) void client.invalidateQueries({ queryKey: [key] });
  };
  channel.addEventListener('message', onMessage);
  return () => channel.removeEventListener('message', onMessage);
}

/** After sleep, focus or a reconnect, everything live is refetched. */
export function refetchOnWake(client: QueryClient): () => void {
  const wake = (): void => {
    if (document.visibilityState === 'visible') void client.invalidateQueries({ queryKey: ['live'] });
  };
  document.addEventListener('visibilitychange', wake);
  window.addEventListener('online', wake);
  window.addEventListener('pageshow', wake);
  return () => {
    document.removeEventListener('visibilitychange', wake);
    window.removeEventListener('online', wake);
    window.removeEventListener('pageshow', wake);
  };
}
