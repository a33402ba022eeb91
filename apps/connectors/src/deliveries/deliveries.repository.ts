import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { queryRows, schemaOf } from '@worktrack/platform';
import { DeliveryEntity } from './entities/delivery.entity';

export type NewDelivery = Pick<
  DeliveryEntity,
  'id' | 'connectorId' | 'receivedAt' | 'providerDeliveryId' | 'providerEvent' | 'state' | 'events' | 'eventsMapped' | 'detail' | 'retryNum'
>;

export interface ClaimedDelivery {
  id: string;
  connector_id: string;
  events: DeliveryEntity['events'];
  attempts: number;
}

/** The delivery log and its work queue (pending rows, claimed with a lease). */
@Injectable()
export class DeliveriesRepository {
  private readonly schema: string;

  constructor(private readonly dataSource: DataSource) {
    this.schema = schemaOf(dataSource);
  }

  async insert(delivery: NewDelivery, manager: EntityManager = this.dataSource.manager): Promise<void> {
    const row: QueryDeepPartialEntity<DeliveryEntity> = {
      ...delivery,
      // Plain JSON data; TypeORM's deep-partial type cannot express Record<string, unknown> payloads.
      events: delivery.events as unknown as QueryDeepPartialEntity<DeliveryEntity>['events'],
      nextAttemptAt: delivery.state === 'pending' ? delivery.receivedAt : null,
      processedAt: delivery.state === 'pending' ? null : new Date(),
    };
    await manager.insert(DeliveryEntity, row);
  }

  /**
   * Claims up to `limit` pending deliveries that are due, for `leaseMs`: a
   * replica that dies mid-way loses its lease and another takes over (the
   * events are deduplicated by external_id, so a second ingest is harmless).
   */
  claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return queryRows<ClaimedDelivery>(
      this.dataSource.manager,
      `UPDATE "${this.schema}"."deliveries" d SET lease_until = now() + ($2 * interval '1 millisecond'), attempts = d.attempts + 1
        WHERE d.id IN (
          SELECT id FROM "${this.schema}"."deliveries"
           WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
           ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING d.id, d.connector_id, d.events, d.attempts`,
      [limit, leaseMs],
    );
  }

  async markIngested(id: string, accepted: number, deduplicated: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE "${this.schema}"."deliveries"
          SET state = 'ingested', events_accepted = $2, events_deduplicated = $3, detail = NULL,
              processed_at = now(), lease_until = NULL, next_attempt_at = NULL
        WHERE id = $1`,
      [id, accepted, deduplicated],
    );
  }

  async markFailed(id: string, detail: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE "${this.schema}"."deliveries"
          SET state = 'failed', detail = $2, processed_at = now(), lease_until = NULL, next_attempt_at = NULL
        WHERE id = $1`,
      [id, detail],
    );
  }

  /** Keeps the delivery pending and tries again at `at` (the reason is shown in the log meanwhile). */
  async retryAt(id: string, at: Date, detail: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE "${this.schema}"."deliveries" SET next_attempt_at = $2, detail = $3, lease_until = NULL WHERE id = $1`,
      [id, at, detail],
    );
  }

  /** The detail of the newest poll note (`poll:…:skipped`) of a connector, to log a note only when it changes. */
  async latestPollNote(connectorId: string): Promise<string | null> {
    const rows = await queryRows<{ detail: string | null }>(
      this.dataSource.manager,
      `SELECT detail FROM "${this.schema}"."deliveries"
        WHERE connector_id = $1 AND provider_event = 'poll' AND provider_delivery_id LIKE 'poll:%:skipped'
        ORDER BY received_at DESC LIMIT 1`,
      [connectorId],
    );
    return rows[0]?.detail ?? null;
  }

  /** A connector's log, newest first, keyset-paginated on (received_at, id). */
  page(connectorId: string, limit: number, after?: { receivedAt: string; id: string }): Promise<DeliveryEntity[]> {
    const query = this.dataSource.manager
      .createQueryBuilder(DeliveryEntity, 'd')
      .where('d.connector_id = :connectorId', { connectorId })
      .orderBy('d.received_at', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .limit(limit);
    if (after) query.andWhere('(d.received_at, d.id) < (:receivedAt, :id)', { receivedAt: after.receivedAt, id: after.id });
    return query.getMany();
  }
}
