import { backoffMs } from '../work/backoff';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { ErrorCode } from '@worktrack/contracts';
import { within } from '../async/within';
import { AppConfig, ServiceConfig } from '../config/base.config';
import type { AppLogger } from '../logging/logger';

/** A start-up dependency check: resolves when the dependency answers. */
export type DependencyCheck = () => Promise<void>;

/** Bounded backoff between start-up attempts (the first is 1): 250 ms doubling up to 5 s. */
export const startupBackoffMs = (attempt: number, capMs = 5_000): number => backoffMs(attempt - 1, { firstMs: 250, capMs });

/** What an app needs before it can start: the Kafka cluster, and its Postgres for the apps that own a schema. */
export function dependenciesOf(config: AppConfig): Record<string, DependencyCheck> {
  const checks: Record<string, DependencyCheck> = { kafka: () => kafkaAnswers(config.brokers) };
  if (config instanceof ServiceConfig) checks.postgres = () => postgresAnswers(config.DATABASE_URL, config.MIGRATE_ON_START);
  return checks;
}

/** The cluster answers a metadata request (a throwaway admin with short timeouts, quiet logs). */
async function kafkaAnswers(brokers: string[]): Promise<void> {
  const admin = new Kafka({
    clientId: 'dependency-check',
    brokers,
    connectionTimeout: 2_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length === 0) throw new Error('no brokers');
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * The database answers. A database that does not exist yet counts as up when
 * the app creates it itself (MIGRATE_ON_START); otherwise it is waited for
 * (the migration job creates it).
 */
async function postgresAnswers(url: string, createsDatabase: boolean): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    if (createsDatabase && (err as { code?: string }).code === '3D000') return;
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Until the app listens: /healthz answers 200 (the process is alive) and
 * everything else 503 UNAVAILABLE in the D-1 envelope with `Retry-After`,
 * /readyz naming what the app still waits for. Port 0 (in-process tests) has
 * nothing to hold.
 */
export class StartingProbes {
  private server?: Server;
  waitingFor: Record<string, string> = {};

  async listen(port: number): Promise<void> {
    if (port === 0) return;
    const server = createServer((req, res) => {
      const requestId = randomUUID();
      const path = (req.url ?? '/').split('?')[0];
      res.setHeader('x-request-id', requestId);
      res.setHeader('cache-control', 'no-store');
      // No keep-alive: the port is handed to the app as soon as it is ready.
      res.setHeader('connection', 'close');
      res.setHeader('content-type', 'application/json; charset=utf-8');
      if (path === '/healthz' && req.method === 'GET') {
        res.end(JSON.stringify({ data: { status: 'ok' } }));
        return;
      }
      const waiting = Object.entries(this.waitingFor);
      const error = {
        code: ErrorCode.UNAVAILABLE,
        message: waiting.length > 0 ? `Not ready: waiting for ${waiting.map(([name]) => name).join(', ')}.` : 'Not ready: starting.',
        ...(waiting.length > 0 ? { details: waiting.map(([name, issue]) => ({ path: name, issue })) } : {}),
      };
      res.statusCode = 503;
      res.setHeader('retry-after', '1');
      res.end(JSON.stringify({ error }));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '0.0.0.0', () => resolve());
    });
    this.server = server;
  }

  /** Stops listening and drops every connection at once (never waits for a client). */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await within(closed, 1_000);
  }
}

/**
 * Waits until every dependency answers, with bounded backoff,
 * instead of exiting. Logs when a dependency starts or stops being waited for
 * (and every 30 s while it is), never once per attempt.
 */
export async function waitForDependencies(
  checks: Record<string, DependencyCheck>,
  logger: AppLogger,
  probes: StartingProbes,
  opts: { capMs?: number } = {},
): Promise<void> {
  let lastLog = 0;
  for (let attempt = 1; ; attempt++) {
    const failures: Record<string, string> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await check();
        } catch (err) {
          failures[name] = err instanceof Error ? err.message || err.name : String(err);
        }
      }),
    );
    const names = Object.keys(failures);
    if (names.length === 0) {
      if (attempt > 1) logger.info({ attempts: attempt }, 'dependencies answer; starting');
      probes.waitingFor = {};
      return;
    }
    const changed = names.join() !== Object.keys(probes.waitingFor).join();
    probes.waitingFor = failures;
    if (changed || Date.now() - lastLog >= 30_000) {
      lastLog = Date.now();
      logger.warn({ waitingFor: failures, attempt }, `waiting for ${names.join(', ')}`);
    }
    await sleep(startupBackoffMs(attempt, opts.capMs));
  }
}
