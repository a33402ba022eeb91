import type { MemberV1, WorkingHours } from '@worktrack/contracts';
import type { IdentityMemberEntity } from './entities/member.entity';

export const toMemberV1 = (m: IdentityMemberEntity): MemberV1 => ({
  memberId: m.id,
  workspaceId: m.workspaceId,
  kind: m.kind,
  role: m.role,
  displayName: m.displayName,
  email: m.email,
  timezone: m.timezone,
  workingHours: m.workingHours,
  plateCapacity: m.plateCapacity,
  version: m.version,
  active: m.deactivatedAt === null,
});

/** D-32: the default daily plate capacity. */
export const DEFAULT_PLATE_CAPACITY = 6;

const nineToFive = [{ start: '09:00', end: '17:00' }];
/** Monday to Friday, 09:00–17:00, for members created without working hours. */
export const DEFAULT_WORKING_HOURS: WorkingHours = {
  mon: nineToFive,
  tue: nineToFive,
  wed: nineToFive,
  thu: nineToFive,
  fri: nineToFive,
  sat: [],
  sun: [],
};
