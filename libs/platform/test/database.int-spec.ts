import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createServiceDataSource, ensureDatabase, migrate } from '../src';

const schema = `migrate_race_${randomUUID().slice(0, 8)}`;

class CreateThings1700000000000 implements MigrationInterface {
  name = 'CreateThings1700000000000';
  async up(q: QueryRunner): Promise<void> {
    // A table creates a composite type too: the statement that collides when two migrators race.
    await q.query(`CREATE TABLE "${schema}"."things" (id int PRIMARY KEY)`);
    await q.query('SELECT pg_sleep(0.2)');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "${schema}"."things"`);
  }
}

describe('ensureDatabase()', () => {
  it('creates a missing database once when several processes start together (npm run migrate)', async () => {
    const base = new URL(process.env.DATABASE_URL ?? '');
    const name = `wt_create_race_${randomUUID().slice(0, 8)}`;
    const url = new URL(base);
    url.pathname = `/${name}`;
    const admin = new Client({ connectionString: base.toString() });
    await admin.connect();
    try {
      await expect(Promise.all(Array.from({ length: 6 }, () => ensureDatabase(url.toString())))).resolves.toHaveLength(6);
      const rows = await admin.query<{ n: string }>('SELECT count(*) AS n FROM pg_database WHERE datname = $1', [name]);
      expect(Number(rows.rows[0].n)).toBe(1);
      await expect(ensureDatabase(url.toString())).resolves.toBeUndefined();
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.end();
    }
  });
});

describe('migrate()', () => {
  it('lets several processes migrate one schema at once: each migration runs exactly once', async () => {
    const url = process.env.DATABASE_URL ?? '';
    await ensureDatabase(url);
    const sources = Array.from({ length: 4 }, () =>
      createServiceDataSource({ url, schema, entities: [], migrations: [CreateThings1700000000000], poolSize: 2 }),
    );
    await Promise.all(sources.map((s) => s.initialize()));
    try {
      const applied = await Promise.all(sources.map((s) => migrate(s)));
      expect(applied.flat()).toEqual(['CreateThings1700000000000']);
      const rows = await sources[0].query<Array<{ n: string }>>(`SELECT count(*) AS n FROM "${schema}"."migrations"`);
      expect(Number(rows[0].n)).toBe(1);
      expect(await migrate(sources[0])).toEqual([]);
    } finally {
      await sources[0].query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await Promise.all(sources.map((s) => s.destroy()));
    }
  });
});

describe('createServiceDataSource()', () => {
  // ADR 0012 decision 21: with millions of rows, correlation's relink
  // passed jit_above_cost and was compiled with LLVM on every call (≈ 300 ms).
  it('opens connections that never JIT-compile a statement, however costly its plan', async () => {
    const url = process.env.DATABASE_URL ?? '';
    await ensureDatabase(url);
    const source = createServiceDataSource({ url, schema: 'public', entities: [], migrations: [], poolSize: 1 });
    await source.initialize();
    try {
      const costly = 'SELECT count(*) FROM generate_series(1, 50000000) g WHERE g % 7 = 3';
      const [plan] = await source.query<Array<{ 'QUERY PLAN': Array<{ Plan: { 'Total Cost': number }; JIT?: unknown }> }>>(
        `EXPLAIN (FORMAT JSON) ${costly}`,
      );
      const [root] = plan['QUERY PLAN'];
      expect(root.Plan['Total Cost']).toBeGreaterThan(100_000); // past Postgres' default jit_above_cost
      expect(root.JIT).toBeUndefined();
      expect(await source.query('SHOW jit')).toEqual([{ jit: 'off' }]);
      expect(await source.query('SHOW search_path')).toEqual([{ search_path: 'public' }]);
    } finally {
      await source.destroy();
    }
  });
});
