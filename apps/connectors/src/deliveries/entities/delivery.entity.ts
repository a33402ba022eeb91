import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { DeliveryState } from '@worktrack/contracts';
import type { MappedEvent } from '../../mapping/mapped-event';

/**
 * One entry of a connector's delivery log: a verified webhook delivery or a
 * calendar poll that produced events or failed. `events` holds the mapped
 * events (metadata only, D-36) until they are ingested; the raw body is never
 * stored.
 */
@Entity({ name: 'deliveries' })
@Index('ix_deliveries_log', ['connectorId', 'receivedAt', 'id'])
@Index('ix_deliveries_due', ['nextAttemptAt'], { where: `"state" = 'pending'` })
export class DeliveryEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'connector_id' })
  connectorId!: string;

  @Column('timestamptz', { name: 'received_at' })
  receivedAt!: Date;

  @Column('text', { name: 'provider_delivery_id' })
  providerDeliveryId!: string;

  @Column('text', { name: 'provider_event' })
  providerEvent!: string;

  @Column('boolean', { default: true })
  verified!: boolean;

  @Column('text')
  state!: DeliveryState;

  @Column('jsonb')
  events!: MappedEvent[];

  @Column('integer', { name: 'events_mapped', default: 0 })
  eventsMapped!: number;

  @Column('integer', { name: 'events_accepted', default: 0 })
  eventsAccepted!: number;

  @Column('integer', { name: 'events_deduplicated', default: 0 })
  eventsDeduplicated!: number;

  @Column('text', { nullable: true })
  detail!: string | null;

  @Column('integer', { default: 0 })
  attempts!: number;

  @Column('integer', { name: 'retry_num', nullable: true })
  retryNum!: number | null;

  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt!: Date | null;

  /** A replica ingesting this delivery holds it until then (crash-safe claim). */
  @Column('timestamptz', { name: 'lease_until', nullable: true })
  leaseUntil!: Date | null;

  @Column('timestamptz', { name: 'processed_at', nullable: true })
  processedAt!: Date | null;
}
