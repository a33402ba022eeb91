import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_RETURN_TO } from '@worktrack/contracts';

/** D-41: a single sign-on provider as the sign-in page lists it. */
export class SignInProviderBody {
  @ApiProperty({ description: 'The provider’s id, as in `/v1/auth/oidc/{provider}/start`.', example: 'corp' })
  id!: string;

  @ApiProperty({ description: 'Its display name (“Sign in with …”).', example: 'Corp SSO' })
  name!: string;
}

export class SignInMethodsMeta {
  @ApiProperty({ description: 'Whether password sign-in (`POST /v1/auth/login`) is on here.' })
  password_login!: boolean;
}

/** D-41: `GET /v1/auth/oidc/{provider}/start?return_to=`. */
export class OidcStartQuery {
  @JSONSchema({
    description: 'Where the app goes once signed in: a path of this origin (anything else goes to `/`).',
    examples: ['/sessions'],
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_RETURN_TO)
  return_to?: string;
}
