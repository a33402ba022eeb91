import { ActivityEventEntity } from '../events/entities/activity-event.entity';
import { LinkAuditEntity } from '../events/entities/link-audit.entity';
import { IngestionInit1763750000001 } from './migrations/1763750000001-IngestionInit';
import { IngestionActivityEvents1763770000000 } from './migrations/1763770000000-IngestionActivityEvents';
import { IngestionLinkVersion1763810000001 } from './migrations/1763810000001-IngestionLinkVersion';
import { IngestionLinkAudit1764100000000 } from './migrations/1764100000000-IngestionLinkAudit';
import { IngestionUsage1764200000000 } from './migrations/1764200000000-IngestionUsage';
import { IngestionOutboxTraceparent1767000000004 } from './migrations/1767000000004-IngestionOutboxTraceparent';
import { IngestionOutboxLz41767100000004 } from './migrations/1767100000004-IngestionOutboxLz4';
import { IngestionUsageFillfactor1767100000005 } from './migrations/1767100000005-IngestionUsageFillfactor';
import { ModelPriceEntity } from '../usage/entities/model-price.entity';
import { UsageRecordEntity } from '../usage/entities/usage-record.entity';

/** The ingestion service owns exactly this Postgres schema. */
export const ingestionDatabase = {
  schema: 'ingestion',
  entities: [ActivityEventEntity, LinkAuditEntity, UsageRecordEntity, ModelPriceEntity],
  migrations: [
    IngestionInit1763750000001,
    IngestionActivityEvents1763770000000,
    IngestionLinkVersion1763810000001,
    IngestionLinkAudit1764100000000,
    IngestionUsage1764200000000,
    IngestionOutboxTraceparent1767000000004,
    IngestionOutboxLz41767100000004,
    IngestionUsageFillfactor1767100000005,
  ],
};
