import 'reflect-metadata';
import { defineCommand } from '../../message';
import { ActorOnlyV1 } from '../identity.commands';
import { BrowserSessionListV1 } from './browser-session';

/** D-40: `GET /v1/auth/sessions`, the caller's browser sessions that have not ended, newest first. */
export const ListBrowserSessions = defineCommand({
  type: 'identity.auth.session.list',
  version: 1,
  topic: 'identityCommands',
  payload: ActorOnlyV1,
  result: BrowserSessionListV1,
});
