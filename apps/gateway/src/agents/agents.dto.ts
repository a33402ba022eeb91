import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { TOKEN_SCOPES, type TokenScope } from '@worktrack/contracts';

export class RegisterAgentDto {
  /** The agent's display name. */
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  /** The scope of the agent's token; D-12 default `report_only`. */
  @IsOptional()
  @IsIn(TOKEN_SCOPES)
  scope?: TokenScope;
}
