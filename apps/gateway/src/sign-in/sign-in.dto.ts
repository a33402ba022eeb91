import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MaxCodePoints, PASSWORD_MAX, PASSWORD_MIN } from '@worktrack/contracts';
import { UUID_PATTERN } from '../openapi/validation-schemas';
import { IsIanaTimeZone } from '../me/me.dto';
import { MemberBody } from '../me/member.presenter';

/** D-39: `POST /v1/auth/login`. */
export class LoginDto {
  @JSONSchema({ description: 'The member’s email (compared case-insensitively).', examples: ['ada@example.com'] })
  @IsEmail()
  @MaxLength(320)
  email!: string;

  @JSONSchema({
    description: `The password (${PASSWORD_MIN} to ${PASSWORD_MAX} characters when set).`,
    examples: ['correct horse battery staple'],
  })
  @IsString()
  @MinLength(1)
  @MaxCodePoints(PASSWORD_MAX)
  password!: string;

  @JSONSchema({ description: 'The current 6-digit code of the authenticator app, when two-factor is on.', examples: ['123456'] })
  @IsOptional()
  @Matches(/^\d{6}$/, { message: 'totp_code must be 6 digits' })
  totp_code?: string;

  @JSONSchema({ description: 'One of the recovery codes, instead of `totp_code`; each works once.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  recovery_code?: string;
}

/** D-39: `POST /v1/me/password`. */
export class ChangePasswordDto {
  @JSONSchema({ description: 'The password in use now.', examples: ['correct horse battery staple'] })
  @IsString()
  @MinLength(1)
  @MaxCodePoints(PASSWORD_MAX)
  current_password!: string;

  @JSONSchema({ description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`, examples: ['a longer passphrase than before'] })
  @IsString()
  @MinLength(PASSWORD_MIN)
  @MaxCodePoints(PASSWORD_MAX)
  new_password!: string;
}

/** D-38: `POST /v1/auth/accept-invite`. */
export class AcceptInviteDto {
  @JSONSchema({ description: 'The `token` of the invite link.', examples: ['8Jd0b2m3Qx4Zr6Tt9LwKp1Vn5Hc7Ys0Ua2Ei4Og6Ik8'] })
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'token must be the one of the invite link' })
  token!: string;

  @JSONSchema({
    description: `The new member’s password: ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`,
    examples: ['correct horse battery staple'],
  })
  @IsString()
  @MinLength(PASSWORD_MIN)
  @MaxCodePoints(PASSWORD_MAX)
  password!: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxCodePoints(200)
  display_name?: string;

  @JSONSchema({ description: 'IANA time zone name; UTC when absent.', examples: ['Europe/Berlin'] })
  @IsOptional()
  @IsIanaTimeZone()
  timezone?: string;
}

export class BrowserSessionIdParam {
  @JSONSchema({ pattern: UUID_PATTERN, description: 'The browser session (the `sid` of its access tokens).' })
  @IsUUID(undefined, { message: 'sid must be a UUID' })
  sid!: string;
}

/** D-40: what every sign-in answers (the refresh secret is in the cookie only). */
export class SignedInBody {
  @ApiProperty({
    description: 'A session JWT (ES256, at most 10 minutes): send it as `Authorization: Bearer …`.',
    example: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl',
  })
  access_token!: string;

  @ApiProperty({ enum: ['Bearer'] })
  token_type!: 'Bearer';

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 600, description: 'Seconds until the access token expires.' })
  expires_in!: number;

  @ApiProperty({ type: MemberBody })
  member!: MemberBody;
}

/** D-40: a browser session as listed. */
export class BrowserSessionBody {
  @ApiProperty({ format: 'uuid' })
  sid!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  last_used_at!: string;

  @ApiProperty({ type: 'string', nullable: true })
  user_agent!: string | null;

  @ApiProperty({ description: 'Whether this is the session of the calling access token.' })
  current!: boolean;
}

export class SignedOutBody {
  @ApiProperty({ description: 'Whether a browser session ended (false: the cookie named none that was on).' })
  signed_out!: boolean;
}

export class PasswordChangedBody {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many other browser sessions ended.' })
  ended_sessions!: number;
}

/** D-41: a single-sign-on provider. */
export class ProviderBody {
  @ApiProperty({ example: 'okta' })
  id!: string;

  @ApiProperty({ example: 'Okta' })
  name!: string;
}
