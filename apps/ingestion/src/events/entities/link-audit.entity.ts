import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The link audit's progress (ADR 0016): one row. Events received before
 * `watermark` have been audited; the replica auditing holds the lease
 * (`lease_holder` until `lease_until`), so one replica audits at a time and
 * another takes over when it dies.
 */
@Entity({ name: 'link_audit' })
export class LinkAuditEntity {
  /** Always 1. */
  @PrimaryColumn('smallint')
  id!: number;

  @Column('timestamptz')
  watermark!: Date;

  @Column('text', { name: 'lease_holder', nullable: true })
  leaseHolder!: string | null;

  @Column('timestamptz', { name: 'lease_until', nullable: true })
  leaseUntil!: Date | null;
}
