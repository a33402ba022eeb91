import { createWorktrackClient, type WorktrackClient } from '../client';
import { WorktrackError } from '../errors';
import { ApiFailure, kindOfStatus, type WorktrackApi } from './api-port';

/** Longest wait for one HTTP answer; the SDK retries within its own budget after that. */
export const ATTEMPT_TIMEOUT_MS = 30_000;

/** Turns what the SDK throws into the CLI's failure kinds. */
export function toFailure(err: unknown): unknown {
  if (err instanceof WorktrackError) {
    // status 0: no answer at all (the SDK's network failure, after its retries).
    const kind = err.status === 0 ? 'unreachable' : kindOfStatus(err.status);
    return new ApiFailure(kind, err.message, err.status || undefined, err.code, err.details);
  }
  if (err instanceof Error && err.name === 'TimeoutError') {
    return new ApiFailure('unreachable', `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`);
  }
  return err;
}

const mapped =
  <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    try {
      return await call(...args);
    } catch (err) {
      throw toFailure(err);
    }
  };

/**
 * The CLI's API port on the SDK client: auth, retries (503, 429 and network
 * failures where safe), idempotency keys and typed errors come from the SDK.
 */
export function createApi(url: string, token: string): WorktrackApi {
  const client: WorktrackClient = createWorktrackClient({
    baseUrl: url,
    token,
    // A hung connection must not hang a CI job: each attempt is bounded.
    fetch: (request) => globalThis.fetch(request, { signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) }),
  });
  return {
    sendEvents: mapped((events) => client.reportEvents(events)),
    me: mapped(() => client.me()),
    startSession: mapped((input) => client.startSession({ ...input, source: 'timer' })),
    listSessions: mapped(async (state) => (await client.listSessions({ state, limit: 1 })).data),
    sessionAction: mapped((id, action, body) => {
      switch (action) {
        case 'pause':
          return client.pauseSession(id, body);
        case 'resume':
          return client.resumeSession(id);
        case 'close':
          return client.closeSession(id, body);
      }
    }),
    assignPlate: mapped((input) => client.assignToPlate(input)),
    reportUsage: mapped((records) => client.reportUsage(records)),
    listUsage: mapped(async (query) => (await client.listUsage(query)).data),
    report: mapped(async (report, query) => {
      switch (report) {
        case 'summary':
          return await client.reportSummary(query);
        case 'sessions':
          return await client.reportSessions(query);
        case 'activity':
          return await client.reportActivity(query);
        case 'plate':
          return await client.reportPlate(query);
      }
    }),
    reportCsv: mapped((report, query) => client.reportCsv(report, query)),
    // The day's items come a page at a time: all of them, for one listing.
    plate: mapped(async (date) => {
      const first = await client.plate(date ? { date } : {});
      const day = { ...first.data, items: [...first.data.items] };
      for (let cursor = first.meta.cursor; cursor;) {
        const next = await client.plate({ ...(date ? { date } : {}), cursor });
        day.items.push(...next.data.items);
        cursor = next.meta.cursor;
      }
      return day;
    }),
  };
}
