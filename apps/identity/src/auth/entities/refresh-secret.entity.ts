import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { BrowserSessionEntity } from './browser-session.entity';

/**
 * D-40: every refresh secret a browser session was given, by SHA-256 only.
 * The current one has no `rotated_at`; presenting a rotated-out one is reuse
 * and ends the session.
 */
@Entity({ name: 'refresh_secrets' })
@Index('ix_refresh_secrets_session', ['sessionId'])
export class RefreshSecretEntity {
  @PrimaryColumn('bytea', { name: 'secret_hash' })
  secretHash!: Buffer;

  @Column('uuid', { name: 'session_id' })
  sessionId!: string;

  @ManyToOne(() => BrowserSessionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'session_id', foreignKeyConstraintName: 'fk_refresh_secrets_session' })
  session?: BrowserSessionEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'rotated_at', nullable: true })
  rotatedAt!: Date | null;
}
