import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AppliedMigration } from '@worktrack/contracts';
import { schemaOf } from '../database/data-source.factory';

/** Reads what a service knows about its own schema. */
@Injectable()
export class StatusRepository {
  constructor(private readonly dataSource: DataSource) {}

  get schema(): string {
    return schemaOf(this.dataSource);
  }

  async appliedMigrations(): Promise<AppliedMigration[]> {
    const rows = await this.dataSource.query<Array<{ name: string; timestamp: string }>>(
      `SELECT name, timestamp FROM "${this.schema}"."migrations" ORDER BY id DESC`,
    );
    return rows.map((r) => ({ name: r.name, timestamp: Number(r.timestamp) }));
  }

  async serverVersion(): Promise<string> {
    const rows = await this.dataSource.query<Array<{ server_version: string }>>('SHOW server_version');
    return rows[0]?.server_version ?? 'unknown';
  }
}
