/** A page of a list: D-1 `{ data: [...], meta: { cursor } }`; `cursor` is null on the last page. */
export interface Page<T> {
  data: T[];
  meta: { cursor: string | null };
}

/**
 * Iterates over cursor pages: calls `fetchPage` without a cursor, then with
 * each page's `meta.cursor` until it is null. Pages are fetched lazily, one
 * per step of the loop, so `break` stops fetching.
 *
 *   for await (const page of paginate((cursor) => client.listSessions({ state: 'closed', cursor })))
 */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<Page<T>, void, undefined> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetchPage(cursor);
    yield page;
    const next = page.meta.cursor;
    if (next === null || next === '') return;
    // A server that handed out the same cursor twice would loop forever.
    if (seen.has(next)) throw new Error(`paginate: the cursor ${next} came back twice`);
    seen.add(next);
    cursor = next;
  }
}

/** Every item of every page, in order. */
export async function* items<T>(pages: AsyncIterable<Page<T>>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page.data;
}
