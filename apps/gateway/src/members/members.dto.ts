import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MEMBER_KINDS, MEMBER_ROLES, type ListedMemberV1, type MemberKind, type MemberRole, type MemberV1 } from '@worktrack/contracts';
import { MemberBody, presentMember } from '../me/member.presenter';
import { PageQueryDto } from '../pagination/page-query.dto';
import { UUID_PATTERN } from '../openapi/validation-schemas';

export class MemberIdParam {
  @JSONSchema({ description: 'The member.', pattern: UUID_PATTERN })
  @IsUUID()
  member_id!: string;
}

/** `PATCH /v1/members/{member_id}`: any of the fields; absent ones are kept. */
export class UpdateMemberDto {
  @JSONSchema({ description: "Items a day on the member's plate; applies to later assignments.", examples: [8] })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1000)
  plate_capacity?: number;

  @JSONSchema({
    description: 'Only an owner may make or unmake an owner; a workspace keeps at least one active owner; agents stay `member`.',
  })
  @IsOptional()
  @IsIn(MEMBER_ROLES)
  role?: MemberRole;
}

/** A member as owners and admins manage it: the profile and whether it is active. */
export class ManagedMemberBody extends MemberBody {
  @ApiProperty({ description: 'False once deactivated: its credentials are refused, nothing of it is deleted.' })
  active!: boolean;
}

export const presentManagedMember = (m: MemberV1): ManagedMemberBody => ({ ...presentMember(m), active: m.active !== false });

/** `GET /v1/members`: paging and an optional kind. */
export class ListMembersQueryDto extends PageQueryDto {
  @JSONSchema({ description: 'Only humans or only agents.' })
  @IsOptional()
  @IsIn(MEMBER_KINDS)
  kind?: MemberKind;
}

const MANAGERS_ONLY = 'Present for owners and admins, and on your own row; absent for the teammates a plain member sees.';

/** A member as the list shows it: every field to owners and admins, id, name and kind of active teammates to plain members. */
export class ListedMemberBody {
  @ApiProperty({ format: 'uuid' })
  member_id!: string;

  @ApiProperty({ enum: MEMBER_KINDS })
  kind!: MemberKind;

  @ApiProperty({ example: 'Ada Lovelace' })
  display_name!: string;

  @ApiProperty({ enum: MEMBER_ROLES, required: false, description: MANAGERS_ONLY })
  role?: MemberRole;

  @ApiProperty({ type: 'string', format: 'email', nullable: true, required: false, description: `${MANAGERS_ONLY} Agents have none.` })
  email?: string | null;

  @ApiProperty({ required: false, description: `IANA time zone name. ${MANAGERS_ONLY}` })
  timezone?: string;

  @ApiProperty({ type: 'integer', minimum: 0, required: false, description: `Items a day on the plate. ${MANAGERS_ONLY}` })
  plate_capacity?: number;

  @ApiProperty({ required: false, description: `False once deactivated. ${MANAGERS_ONLY}` })
  active?: boolean;

  @ApiProperty({ type: 'string', format: 'date-time', required: false, description: `When the member joined. ${MANAGERS_ONLY}` })
  created_at?: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    required: false,
    description: `The latest use of one of the member's API tokens or browser sessions, to the minute; null when never. ${MANAGERS_ONLY}`,
  })
  last_seen_at?: string | null;
}

export const presentListedMember = (m: ListedMemberV1): ListedMemberBody => ({
  member_id: m.memberId,
  kind: m.kind,
  display_name: m.displayName,
  ...(m.role !== undefined ? { role: m.role } : {}),
  ...(m.email !== undefined ? { email: m.email ?? null } : {}),
  ...(m.timezone !== undefined ? { timezone: m.timezone } : {}),
  ...(m.plateCapacity !== undefined ? { plate_capacity: m.plateCapacity } : {}),
  ...(m.active !== undefined ? { active: m.active } : {}),
  ...(m.createdAt !== undefined ? { created_at: m.createdAt } : {}),
  ...(m.lastSeenAt !== undefined ? { last_seen_at: m.lastSeenAt ?? null } : {}),
});
