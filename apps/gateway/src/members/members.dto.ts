import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MEMBER_ROLES, type MemberRole, type MemberV1 } from '@worktrack/contracts';
import { MemberBody, presentMember } from '../me/member.presenter';
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
