import { createHash } from 'node:crypto';
import { Client, type Pool, type QueryResultRow } from 'pg';
import { DataSource, MigrationExecutor, type DataSourceOptions, type MixedList, type EntitySchema } from 'typeorm';

export interface ServiceDataSourceOptions {
  url: string;
  /** The one Postgres schema this service owns. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own type for entity/migration lists
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- idem
  migrations: MixedList<Function | string>;
  poolSize?: number;
  applicationName?: string;
}

/**
 * One DataSource per service schema: its own migrations table inside the
 * schema, `synchronize` off, migrations only through `migrate()`.
 */
export function createServiceDataSource(opts: ServiceDataSourceOptions): DataSource {
  const options: DataSourceOptions = {
    type: 'postgres',
    url: opts.url,
    schema: opts.schema,
    entities: opts.entities,
    migrations: opts.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: ['error'],
    applicationName: opts.applicationName,
    extra: {
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      // pg's default closes a connection after 10 s idle: under bursty load the pool
      // shrank and regrew, and each new backend's first statements paid its start-up
      // and catalog warm-up on the request path. Connections stay while there is traffic.
      idleTimeoutMillis: 300_000,
      // Also set on every connection, so unqualified names resolve to the schema.
      // JIT off (ADR 0012 decision 21): once a table holds millions of
      // rows, the planner's cost of a request path's statement (correlation's
      // relink of a member's events) passes jit_above_cost, and Postgres compiled
      // it with LLVM on every call: about 300 ms of CPU for a statement that
      // runs in a millisecond. Statements here are short: JIT never pays back.
      options: `-c search_path=${opts.schema} -c jit=off`,
    },
  };
  return new DataSource(options);
}

/**
 * Creates the database named in `url` when it does not exist (development and
 * tests; production databases are provisioned). Safe to run concurrently.
 */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[a-zA-Z0-9_]+$/.test(name)) throw new Error(`refusing to create database with name ${JSON.stringify(name)}`);
  const probe = new Client({ connectionString: url });
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err; // 3D000: database does not exist
  } finally {
    await probe.end().catch(() => undefined);
  }
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    // Processes started together (`npm run migrate` runs every service's at
    // once) take turns: a CREATE DATABASE racing another fails with a unique
    // violation on pg_database (23505), not with 42P04.
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`worktrack.create-database:${name}`]);
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw err; // created meanwhile by a process not using the lock
  } finally {
    await client.end(); // ends the session, so releases its advisory lock
  }
}

/**
 * Creates the schema if needed and applies pending migrations, each in its own
 * transaction. Safe when several processes migrate one schema at once (a k8s
 * Job and a replica with MIGRATE_ON_START, parallel tests): they take turns
 * on a session-level advisory lock held by one dedicated connection.
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const schema = schemaOf(dataSource);
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const lockKey = `worktrack.migrate:${schema}`;
  try {
    await runner.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    const applied = await executor.executePendingMigrations();
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]).catch(() => undefined);
    await runner.release();
  }
}

export function schemaOf(dataSource: DataSource): string {
  const schema = (dataSource.options as { schema?: string }).schema;
  if (!schema) throw new Error('data source has no schema');
  return schema;
}

/**
 * Runs SQL and returns its rows. TypeORM's `query()` answers UPDATE and DELETE
 * statements with `[rows, affectedCount]` but every other statement with the
 * rows alone; this evens that out (for `… RETURNING` in particular).
 */
export async function queryRows<T>(
  manager: { query: (sql: string, params?: unknown[]) => Promise<unknown> },
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const result = await manager.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** Names of prepared statements by their text: one name per text, the same in every process. */
const statementNames = new Map<string, string>();

/** A stable name for a statement's text (pg refuses one name for two texts on a connection). */
export function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `wt_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * Runs one autocommitted statement on the DataSource's pool as a named
 * prepared statement and returns its rows (ADR 0012). Postgres
 * parses, analyses and plans an unnamed statement again on every call; a
 * named one once per connection (and keeps a generic plan when it is as
 * good): for the CTE statements of the request paths that was 0.2–0.25 ms
 * of backend CPU per statement, more than executing them. For statements
 * whose text is one of a few fixed ones (the text names the statement: text
 * built per call would prepare per call); values only as parameters. Not in
 * a transaction: a transaction's statements go through its EntityManager.
 */
export async function queryPrepared<T extends QueryResultRow>(dataSource: DataSource, sql: string, params: unknown[] = []): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  if (!pool) return queryRows<T>(dataSource, sql, params); // not connected through pg's pool: plain TypeORM
  const result = await pool.query<T>({ name: statementName(sql), text: sql, values: params });
  return result.rows;
}
