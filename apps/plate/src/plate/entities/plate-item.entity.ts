import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** An item on a member's plate for a day; who assigned it is kept. */
@Entity({ name: 'plate_items' })
@Index('ix_plate_items_assignee_day', ['assigneeId', 'plateDate'])
export class PlateItemEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  @Column('uuid', { name: 'assignee_id' })
  assigneeId!: string;

  @Column('uuid', { name: 'assigned_by' })
  assignedBy!: string;

  @Column('text')
  title!: string;

  @Column('date', { name: 'plate_date' })
  plateDate!: string;

  @Column('timestamptz', { name: 'done_at', nullable: true })
  doneAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
