import { PlateMemberEntity } from '../members/entities/plate-member.entity';
import { PlateDayEntity } from '../plate/entities/plate-day.entity';
import { PlateItemEntity } from '../plate/entities/plate-item.entity';
import { PlateInit1763750000004 } from './migrations/1763750000004-PlateInit';
import { PlateTables1763800000000 } from './migrations/1763800000000-PlateTables';
import { PlateMemberVersions1764000000001 } from './migrations/1764000000001-PlateMemberVersions';
import { PlateOutbox1764900000000 } from './migrations/1764900000000-PlateOutbox';
import { PlateOutboxTraceparent1767000000001 } from './migrations/1767000000001-PlateOutboxTraceparent';
import { PlateOutboxLz41767100000001 } from './migrations/1767100000001-PlateOutboxLz4';

/** The plate service owns exactly this Postgres schema. */
export const plateDatabase = {
  schema: 'plate',
  entities: [PlateMemberEntity, PlateDayEntity, PlateItemEntity],
  migrations: [
    PlateInit1763750000004,
    PlateTables1763800000000,
    PlateMemberVersions1764000000001,
    PlateOutbox1764900000000,
    PlateOutboxTraceparent1767000000001,
    PlateOutboxLz41767100000001,
  ],
};
