import { ApiProperty } from '@nestjs/swagger';
import { IsIn, Matches } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { TWO_FACTOR_POLICIES, type TwoFactorPolicy } from '@worktrack/contracts';

export class TotpCodeDto {
  @JSONSchema({ description: 'The current 6-digit code of the authenticator app.', examples: ['492039'] })
  @Matches(/^\d{6}$/, { message: 'code must be 6 digits' })
  code!: string;
}

export class UpdateWorkspaceDto {
  @JSONSchema({ description: 'Whose browser sessions must have two-factor on: nobody, owners and admins, or everyone.' })
  @IsIn(TWO_FACTOR_POLICIES)
  require_two_factor!: TwoFactorPolicy;
}

export class TotpEnrolmentBody {
  @ApiProperty({
    description: 'The new secret (base32), for authenticator apps that take it typed.',
    example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  })
  secret!: string;

  @ApiProperty({
    format: 'uri',
    description: 'The `otpauth://` URI to show as a QR code.',
    example: 'otpauth://totp/worktrack:ada%40example.com?issuer=worktrack&secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
  })
  otpauth_uri!: string;
}

export class RecoveryCodesBody {
  @ApiProperty({
    type: [String],
    description: 'Ten one-time codes for when the authenticator is lost, shown this once.',
    example: ['k3v7q-2xa9m', 'p4r8t-6bn2c'],
  })
  recovery_codes!: string[];
}

export class TotpStateBody {
  @ApiProperty({ enum: ['on', 'off'] })
  totp!: 'on' | 'off';
}

export class WorkspaceBody {
  @ApiProperty({ format: 'uuid' })
  workspace_id!: string;

  @ApiProperty({ example: 'Acme' })
  name!: string;

  @ApiProperty({ enum: TWO_FACTOR_POLICIES })
  require_two_factor!: TwoFactorPolicy;
}
