import { ApiProperty } from '@nestjs/swagger';
import { MEMBER_KINDS, MEMBER_ROLES, WorkingHours, type MemberKind, type MemberRole, type MemberV1 } from '@worktrack/contracts';
import { documentedByValidation } from '../openapi/validation-schemas';

/** D-13: the member on the wire. */
export class MemberBody {
  @ApiProperty({ format: 'uuid' })
  member_id!: string;

  @ApiProperty({ format: 'uuid' })
  workspace_id!: string;

  @ApiProperty({ enum: MEMBER_KINDS })
  kind!: MemberKind;

  @ApiProperty({ enum: MEMBER_ROLES })
  role!: MemberRole;

  @ApiProperty({ example: 'Ada Lovelace' })
  display_name!: string;

  @ApiProperty({ type: 'string', format: 'email', nullable: true })
  email!: string | null;

  @ApiProperty({ description: 'IANA time zone name, e.g. `Europe/Berlin`.', example: 'Europe/Berlin' })
  timezone!: string;

  @ApiProperty({
    // Documented by the contract's class-validator rules, not a copy of them.
    type: documentedByValidation(WorkingHours),
    description: 'Per weekday, the working intervals (`HH:MM`, in `timezone`); `[]` for a day off.',
  })
  working_hours!: WorkingHours;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Items a day on the plate.' })
  plate_capacity!: number;
}

export const presentMember = (m: MemberV1): MemberBody => ({
  member_id: m.memberId,
  workspace_id: m.workspaceId,
  kind: m.kind,
  role: m.role,
  display_name: m.displayName,
  email: m.email ?? null,
  timezone: m.timezone,
  working_hours: m.workingHours,
  plate_capacity: m.plateCapacity,
});
