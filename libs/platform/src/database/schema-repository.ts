import type { DataSource, EntityManager } from 'typeorm';
import { schemaOf } from './data-source.factory';

/**
 * What every repository of a service schema shares: its DataSource, the
 * schema's name, and a transaction for a service that changes several rows
 * (and queues their messages) at once. A subclass declares its own
 * constructor taking the DataSource, so Nest injects it.
 */
export abstract class SchemaRepository {
  protected readonly schema: string;

  constructor(protected readonly dataSource: DataSource) {
    this.schema = schemaOf(dataSource);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}
