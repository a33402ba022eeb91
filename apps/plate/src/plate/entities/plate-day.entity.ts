import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The count of open items on a member's day: the row a conditional UPDATE
 * claims a slot on, so capacity holds under concurrency (D-34).
 */
@Entity({ name: 'plate_days' })
export class PlateDayEntity {
  @PrimaryColumn('uuid', { name: 'member_id' })
  memberId!: string;

  @PrimaryColumn('date', { name: 'plate_date' })
  plateDate!: string;

  @Column('integer', { name: 'active_count', default: 0 })
  activeCount!: number;
}
