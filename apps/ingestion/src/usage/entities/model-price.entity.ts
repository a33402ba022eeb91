import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A row of a workspace's price list (D-47): USD per million tokens, NUMERIC, from `effective_from` on. */
@Entity({ name: 'model_prices' })
export class ModelPriceEntity {
  @PrimaryColumn('uuid', { name: 'workspace_id' }) workspaceId!: string;
  @PrimaryColumn('varchar', { length: 64 }) provider!: string;
  @PrimaryColumn('varchar', { name: 'model_pattern', length: 256 }) modelPattern!: string;
  @PrimaryColumn('timestamptz', { name: 'effective_from' }) effectiveFrom!: Date;
  @Column('numeric') input!: string;
  @Column('numeric') output!: string;
  @Column('numeric', { name: 'cache_read_input', nullable: true }) cacheReadInput!: string | null;
  @Column('numeric', { name: 'cache_creation_input', nullable: true }) cacheCreationInput!: string | null;
  @Column('numeric', { name: 'reasoning_output', nullable: true }) reasoningOutput!: string | null;
}
