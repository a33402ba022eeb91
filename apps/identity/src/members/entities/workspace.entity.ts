import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { TwoFactorPolicy } from '@worktrack/contracts';

@Entity({ name: 'workspaces' })
@Index('ux_workspaces_name', ['name'], { unique: true })
export class WorkspaceEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** D-42: whose browser sessions must have two-factor on. */
  @Column('varchar', { name: 'require_two_factor', length: 8, default: 'none' })
  requireTwoFactor!: TwoFactorPolicy;
}
