import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A stored usage record (D-45 … D-48). Ids are UUIDv7 as for events; the
 * D-46 key (member, provider, external_id) is unique forever; `cost` is
 * NUMERIC, read and written as its decimal text, never a float.
 */
@Entity({ name: 'usage_records' })
@Index('ux_usage_records_dedup', ['memberId', 'provider', 'externalId'], { unique: true })
@Index('ix_usage_records_list', ['memberId', 'occurredAt', 'id'])
export class UsageRecordEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'workspace_id' }) workspaceId!: string;
  @Column('uuid', { name: 'member_id' }) memberId!: string;
  @Column('varchar', { length: 64 }) provider!: string;
  @Column('varchar', { name: 'external_id', length: 256 }) externalId!: string;
  @Column('varchar', { length: 256, nullable: true }) model!: string | null;
  @Column('varchar', { length: 64 }) operation!: string;
  @Column('timestamptz', { name: 'occurred_at' }) occurredAt!: Date;
  @Column('timestamptz', { name: 'received_at' }) receivedAt!: Date;
  @Column('integer', { name: 'duration_ms', nullable: true }) durationMs!: number | null;
  @Column('integer', { name: 'input_tokens', nullable: true }) inputTokens!: number | null;
  @Column('integer', { name: 'output_tokens', nullable: true }) outputTokens!: number | null;
  @Column('integer', { name: 'cache_read_input_tokens', nullable: true }) cacheReadInputTokens!: number | null;
  @Column('integer', { name: 'cache_creation_input_tokens', nullable: true }) cacheCreationInputTokens!: number | null;
  @Column('integer', { name: 'reasoning_output_tokens', nullable: true }) reasoningOutputTokens!: number | null;
  /** The exact decimal text (D-47). */
  @Column('numeric', { nullable: true }) cost!: string | null;
  @Column('varchar', { length: 3, nullable: true }) currency!: 'USD' | null;
  @Column('varchar', { name: 'cost_source', length: 16 }) costSource!: 'reported' | 'computed' | 'none';
  @Column('varchar', { name: 'conversation_id', length: 256, nullable: true }) conversationId!: string | null;
  @Column('varchar', { name: 'tool_name', length: 128, nullable: true }) toolName!: string | null;
  @Column('jsonb') attributes!: Record<string, unknown>;
  /** The record's own session (D-48, `session_named`) or correlation's link (D-31); null until linked or when none covers it. */
  @Column('uuid', { name: 'session_id', nullable: true }) sessionId!: string | null;
  /** True when the record named its session: correlation's links never change it. */
  @Column('boolean', { name: 'session_named', default: false }) sessionNamed!: boolean;
  /** The version of correlation's link held; a link is applied only when newer. */
  @Column('integer', { name: 'link_version', default: 0 }) linkVersion!: number;
}
