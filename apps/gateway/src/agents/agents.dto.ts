import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { API_TOKEN_PATTERN, TOKEN_SCOPES, type TokenScope } from '@worktrack/contracts';
import { MemberBody } from '../me/member.presenter';

export class RegisterAgentDto {
  @JSONSchema({ description: "The agent's display name." })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @JSONSchema({ description: "The scope of the agent's token (D-9); default `report_only` (D-12)." })
  @IsOptional()
  @IsIn(TOKEN_SCOPES)
  scope?: TokenScope;
}

/** D-12: the agent created and its token, shown this once. */
export class RegisteredAgentBody {
  @ApiProperty({ type: MemberBody })
  agent!: MemberBody;

  @ApiProperty({ pattern: API_TOKEN_PATTERN.source, description: "D-8: the agent's API token, shown this once." })
  token!: string;
}
