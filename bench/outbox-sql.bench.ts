/**
 * What building an outbox row's SQL from its contract costs per statement
 * (ADR 0012 decision 28): the SessionChanged INSERT a session transition
 * writes, and the EventsStored INSERT of an ingest batch, built N times in
 * this process. Prints microseconds of CPU per build.
 *
 *   npm run bench:outbox-sql [-- --n 200000]
 */
import { EventsStored, SessionChanged, StoredEventRefV1 } from '@worktrack/contracts';
import { isoInstantSql, jsonArraySql, outboxInsertSql } from '@worktrack/platform';

const arg = process.argv.indexOf('--n');
const N = arg > 0 ? Number(process.argv[arg + 1]) : 200_000;

const sessionChanged = (): string =>
  outboxInsertSql(SessionChanged, {
    schema: 'sessions',
    key: 'c.member_id::text',
    messageId: '$20::uuid',
    requestId: '$21::text',
    payload: {
      change: `'paused'`,
      sessionId: 'c.id',
      memberId: 'c.member_id',
      workspaceId: 'c.workspace_id',
      source: 'c.source',
      state: 'c.state',
      startedAt: isoInstantSql('c.started_at'),
      closedAt: isoInstantSql('c.closed_at'),
      closedReason: 'c.closed_reason',
      revision: 'c.revision',
      changedAt: isoInstantSql('c.updated_at'),
    },
    from: 'FROM paused c',
  });

const eventsStored = (): string =>
  outboxInsertSql(EventsStored, {
    schema: 'ingestion',
    key: '$12::text',
    messageId: '$10::uuid',
    requestId: '$11::text',
    payload: {
      memberId: '$12::text',
      workspaceId: '$13::text',
      events: jsonArraySql(StoredEventRefV1, { eventId: 'f.id', occurredAt: 'f.oc' }, 'f.n'),
    },
    from: 'FROM fresh f HAVING count(*) > 0',
  });

function measure(name: string, build: () => string): void {
  build(); // the class metadata is read once, then cached
  const start = process.cpuUsage();
  let length = 0;
  for (let i = 0; i < N; i++) length += build().length;
  const used = process.cpuUsage(start);
  const us = (used.user + used.system) / N;
  process.stdout.write(`${name}: ${us.toFixed(2)} µs of CPU per build (${N} builds, ${length / N} characters)\n`);
}

measure('SessionChanged (a session transition)', sessionChanged);
measure('EventsStored (an ingest batch)', eventsStored);
