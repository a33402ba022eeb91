import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { API_TOKEN_PATTERN, TOKEN_ID_PATTERN, TOKEN_SCOPES, type ApiTokenV1, type TokenScope, MaxCodePoints } from '@worktrack/contracts';

export class CreateTokenDto {
  @JSONSchema({ description: 'A label to recognise the token by.', examples: ['CI deploys'] })
  @IsString()
  @MinLength(1)
  @MaxCodePoints(100)
  name!: string;

  @JSONSchema({
    description: '`full` acts as the member in everything; `report_only` may only report its own sessions and activity, and read.',
  })
  @IsIn(TOKEN_SCOPES)
  scope!: TokenScope;

  @JSONSchema({ description: 'The token stops working this many days after creation (1 to 365); never when absent.', examples: [90] })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  expires_in_days?: number;
}

export class RenameTokenDto {
  @JSONSchema({ description: 'A new label for the token.', examples: ['CI deploys (prod)'] })
  @IsString()
  @MinLength(1)
  @MaxCodePoints(100)
  name!: string;
}

export class TokenIdParam {
  @JSONSchema({ description: 'The public id of the token (its short segment).', examples: ['k3v7q2xa'] })
  @Matches(TOKEN_ID_PATTERN, { message: 'token_id must be 8 characters of a-z and 2-7' })
  token_id!: string;
}

/** An API token as listed: never its secret. */
export class TokenBody {
  @ApiProperty({ pattern: TOKEN_ID_PATTERN.source, description: 'The public id of the token.', example: 'k3v7q2xa' })
  token_id!: string;

  @ApiProperty({ example: 'CI deploys' })
  name!: string;

  @ApiProperty({ enum: TOKEN_SCOPES })
  scope!: TokenScope;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the token was last used, to the minute.' })
  last_used_at!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the token stops working (null: never).' })
  expires_at!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Set once the token is revoked.' })
  revoked_at!: string | null;
}

/** A token just created: the only response that ever holds the full token. */
export class CreatedTokenBody extends TokenBody {
  @ApiProperty({
    pattern: API_TOKEN_PATTERN.source,
    description: 'The full token, shown this once.',
    example: 'wt_k3v7q2xa_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8dKLzdocJ',
  })
  token!: string;
}

export const presentToken = (t: ApiTokenV1): TokenBody => ({
  token_id: t.tokenId,
  name: t.name,
  scope: t.scope,
  created_at: t.createdAt,
  last_used_at: t.lastUsedAt ?? null,
  revoked_at: t.revokedAt ?? null,
  expires_at: t.expiresAt ?? null,
});
