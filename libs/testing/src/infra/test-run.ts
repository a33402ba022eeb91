import { randomBytes } from 'node:crypto';

/** What global setup hands to the test workers, through environment variables. */
export const RUN_ENV = {
  runId: 'WT_TEST_RUN_ID',
  serverDatabaseUrl: 'WT_TEST_SERVER_DATABASE_URL',
} as const;

export const newRunId = (): string => `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

/** The same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export const runDatabaseName = (runId: string): string => `wt_${runId}`;
export const runTopicPrefix = (runId: string): string => `${runId}.`;
