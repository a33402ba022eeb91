import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { EXAMPLE_API_TOKEN, TOKEN_SCOPES, type TokenScope, MaxCodePoints } from '@worktrack/contracts';
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
    description:
      "The agent's API token, shown this once: `wt_<token id: 8 lowercase base32>_<secret: 43 base62>`. The example is a placeholder in capitals that no real token can have.",
    example: EXAMPLE_API_TOKEN,
  })
  token!: string;
}
