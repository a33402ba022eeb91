import { IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { TOKEN_SCOPES, type ApiTokenV1, type TokenScope } from '@worktrack/contracts';

export class CreateTokenDto {
  /** A label to recognise the token by. */
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  /** D-9: `full` or `report_only`. */
  @IsIn(TOKEN_SCOPES)
  scope!: TokenScope;
}

export class TokenIdParam {
  @Matches(/^[a-z2-7]{8}$/, { message: 'token_id must be 8 characters of a-z and 2-7' })
  token_id!: string;
}

export interface TokenBody {
  token_id: string;
  name: string;
  scope: TokenScope;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const presentToken = (t: ApiTokenV1): TokenBody => ({
  token_id: t.tokenId,
  name: t.name,
  scope: t.scope,
  created_at: t.createdAt,
  last_used_at: t.lastUsedAt ?? null,
  revoked_at: t.revokedAt ?? null,
});
