import 'reflect-metadata';
import { IsString, IsUUID } from 'class-validator';
import { defineMessage } from '../../message';

/**
 * A browser session ended (logout, end-this-session, refresh-secret reuse,
 * password change): every gateway replica refuses its session JWTs from now
 * on (D-40: within 5 s), as it drops a revoked API token.
 */
export class BrowserSessionEndedV1 {
  @IsUUID() sid!: string;
  @IsUUID() memberId!: string;
  @IsUUID() workspaceId!: string;
  @IsString() endedAt!: string;
}
export const BrowserSessionEnded = defineMessage({
  type: 'identity.browser-session.ended',
  version: 1,
  topic: 'identityEvents',
  payload: BrowserSessionEndedV1,
});
