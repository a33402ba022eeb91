import 'reflect-metadata';
import { IsUUID } from 'class-validator';
import { defineCommand } from '../../message';
import { BrowserSessionStateV1 } from './browser-session';

/** The gateway asks once per `sid` (then caches, and follows `identity.events`) whether a browser session is still on (D-40). */
export class CheckBrowserSessionV1 {
  @IsUUID() sid!: string;
}
export const CheckBrowserSession = defineCommand({
  type: 'identity.auth.session.check',
  version: 1,
  topic: 'identityCommands',
  payload: CheckBrowserSessionV1,
  result: BrowserSessionStateV1,
});
