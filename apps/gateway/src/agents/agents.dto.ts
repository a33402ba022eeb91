import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { API_TOKEN_PATTERN, TOKEN_SCOPES, type TokenScope, MaxCodePoints } from '@worktrack/contracts';
import { MemberBody } from '../me/member.presenter';

export class RegisterAgentDto {
  @JSONSchema({ description: "The agent's display name.", examples: ['Release bot'] })
  @IsString()
  @MinLength(1)
  @MaxCodePoints(200)
  name!: string;

  @JSONSchema({ description: "The scope of the agent's token; default `report_only`." })
  @IsOptional()
  @IsIn(TOKEN_SCOPES)
  scope?: TokenScope;
}

/** D-12: the agent created and its token, shown this once. */
export class RegisteredAgentBody {
  @ApiProperty({ type: MemberBody })
  agent!: MemberBody;

  @ApiProperty({
    pattern: API_TOKEN_PATTERN.source,
    description: "The agent's API token, shown this once.",
    example: 'wt_k3v7q2xa_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8dKLzdocJ',
  })
  token!: string;
}
