import { SessionsMemberEntity } from '../members/entities/member.entity';
import { IdempotencyKeyEntity } from '../sessions/entities/idempotency-key.entity';
import { SessionPauseEntity } from '../sessions/entities/session-pause.entity';
import { SessionEntity } from '../sessions/entities/session.entity';
import { SessionsInit1763750000003 } from './migrations/1763750000003-SessionsInit';
import { SessionsTables1763790000000 } from './migrations/1763790000000-SessionsTables';
import { SessionsMemberVersions1764000000002 } from './migrations/1764000000002-SessionsMemberVersions';
import { SessionsOutboxTraceparent1767000000003 } from './migrations/1767000000003-SessionsOutboxTraceparent';
import { SessionsOutboxLz41767100000002 } from './migrations/1767100000002-SessionsOutboxLz4';

/** The sessions service owns exactly this Postgres schema. */
export const sessionsDatabase = {
  schema: 'sessions',
  entities: [SessionEntity, SessionPauseEntity, IdempotencyKeyEntity, SessionsMemberEntity],
  migrations: [
    SessionsInit1763750000003,
    SessionsTables1763790000000,
    SessionsMemberVersions1764000000002,
    SessionsOutboxTraceparent1767000000003,
    SessionsOutboxLz41767100000002,
  ],
};
