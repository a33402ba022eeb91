import { randomUUID } from 'node:crypto';
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
