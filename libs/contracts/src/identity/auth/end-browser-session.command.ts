import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsUUID, ValidateNested } from 'class-validator';
import { defineCommand } from '../../message';
import { ActorV1 } from '../member';
import { BrowserSessionV1 } from './browser-session';

/** D-40: `DELETE /v1/auth/sessions/{sid}` ends one of the caller's browser sessions (another member's is a missing one). */
export class EndBrowserSessionV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() sid!: string;
}
export const EndBrowserSession = defineCommand({
  type: 'identity.auth.session.end',
  version: 1,
  topic: 'identityCommands',
  payload: EndBrowserSessionV1,
  result: BrowserSessionV1,
});
