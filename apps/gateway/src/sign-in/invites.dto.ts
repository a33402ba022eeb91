import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsInt, IsOptional, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MEMBER_ROLES, type InviteV1, type MemberRole } from '@worktrack/contracts';
import { UUID_PATTERN } from '../openapi/validation-schemas';

/** D-38: `POST /v1/invites`. */
export class CreateInviteDto {
  @JSONSchema({ description: 'Who to invite (compared case-insensitively).', examples: ['grace@example.com'] })
  @IsEmail()
  @MaxLength(320)
  email!: string;

  @JSONSchema({ description: '`member` when absent; admins invite members and admins, owners anyone.' })
  @IsOptional()
  @IsIn(MEMBER_ROLES)
  role?: MemberRole;

  @JSONSchema({ description: 'How long the link works: 1 to 168 hours, 72 when absent.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(168)
  expires_in_hours?: number;
}

export class InviteIdParam {
  @JSONSchema({ pattern: UUID_PATTERN, description: 'The invite id (a UUID).' })
  @IsUUID(undefined, { message: 'invite_id must be a UUID' })
  invite_id!: string;
}

/** D-38: a pending invite (its link is shown once, at creation). */
export class InviteBody {
  @ApiProperty({ format: 'uuid' })
  invite_id!: string;

  @ApiProperty({ format: 'email' })
  email!: string;

  @ApiProperty({ enum: MEMBER_ROLES })
  role!: MemberRole;

  @ApiProperty({ format: 'date-time' })
  expires_at!: string;
}

export class CreatedInviteBody extends InviteBody {
  @ApiProperty({
    format: 'uri',
    description: 'The one-time link (`<PUBLIC_URL>/accept-invite?token=…`), shown this once; mailed too when mail is configured.',
  })
  accept_url!: string;
}

export const presentInvite = (i: InviteV1): InviteBody => ({
  invite_id: i.inviteId,
  email: i.email,
  role: i.role,
  expires_at: i.expiresAt,
});

/** The mail that carries an invite link (D-38). */
export const inviteMail = (to: string, acceptUrl: string, expiresAt: string) => ({
  to,
  subject: 'You are invited to worktrack',
  text:
    `You are invited to a worktrack workspace.\n\n` +
    `Open this link to choose your password and sign in (it works once, until ${expiresAt}):\n\n${acceptUrl}\n\n` +
    `If you did not expect this, ignore this mail.`,
});
