import { CorrelatedEventEntity } from '../links/entities/correlated-event.entity';
import { SessionIntervalEntity } from '../links/entities/session-interval.entity';
import { CorrelationInit1763750000002 } from './migrations/1763750000002-CorrelationInit';
import { CorrelationLinks1763810000000 } from './migrations/1763810000000-CorrelationLinks';
import { CorrelationApplySessionChange1764010000000 } from './migrations/1764010000000-CorrelationApplySessionChange';
import { CorrelationLinkEvents1764010000001 } from './migrations/1764010000001-CorrelationLinkEvents';
import { CorrelationOutboxFromContract1764020000000 } from './migrations/1764020000000-CorrelationOutboxFromContract';
import { CorrelationUsage1764200000001 } from './migrations/1764200000001-CorrelationUsage';
import { CorrelationOutboxTraceparent1767000000002 } from './migrations/1767000000002-CorrelationOutboxTraceparent';
import { CorrelationLinksTraceparent1767000000005 } from './migrations/1767000000005-CorrelationLinksTraceparent';
import { CorrelationOutboxLz41767100000003 } from './migrations/1767100000003-CorrelationOutboxLz4';

/** The correlation service owns exactly this Postgres schema. */
export const correlationDatabase = {
  schema: 'correlation',
  entities: [SessionIntervalEntity, CorrelatedEventEntity],
  migrations: [
    CorrelationInit1763750000002,
    CorrelationLinks1763810000000,
    CorrelationApplySessionChange1764010000000,
    CorrelationLinkEvents1764010000001,
    CorrelationOutboxFromContract1764020000000,
    CorrelationUsage1764200000001,
    CorrelationOutboxTraceparent1767000000002,
    CorrelationLinksTraceparent1767000000005,
    CorrelationOutboxLz41767100000003,
  ],
};
