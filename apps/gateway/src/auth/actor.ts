import type { ActorV1 } from '@worktrack/contracts';
import type { Principal } from './principal';

/** The principal as commands carry it. */
export const actorOf = (p: Principal): ActorV1 => ({
  memberId: p.memberId,
  workspaceId: p.workspaceId,
  scope: p.scope,
  credential: p.credential,
  ...(p.tokenId ? { tokenId: p.tokenId } : {}),
  ...(p.sid ? { sid: p.sid } : {}),
  ...(p.profile ? { profile: p.profile } : {}),
});
