import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type {
  ActorV1,
  AuthMethod,
  BrowserSessionListV1,
  BrowserSessionStateV1,
  BrowserSessionV1,
  RefreshBrowserSessionV1,
  SignedInV1,
  SignedOutV1,
} from '@worktrack/contracts';
import { IdentityConfig } from '../identity.config';
import type { IdentityMemberEntity } from '../members/entities/member.entity';
import { toMemberV1 } from '../members/member.mapper';
import { IdentityMembersRepository } from '../members/members.repository';
import { AuthPublisher } from './auth.publisher';
import { AuthRepository } from './auth.repository';
import { browserSessionNotFound, refreshRefused } from './auth.errors';
import type { BrowserSessionEntity } from './entities/browser-session.entity';
import { SigningKeys } from './signing-keys';
import { TwoFactorPolicyCheck } from './two-factor-policy';

const DAY_MS = 86_400_000;
const hashOf = (hex: string): Buffer => Buffer.from(hex, 'hex');

export type EndReason = 'logout' | 'ended' | 'reuse' | 'password';

/**
 * Browser sessions (D-40): opened by every sign-in, kept alive by rotating
 * refresh secrets (stored by hash), ended by logout, by the member, by reuse
 * of a rotated-out secret or by a password change — each end published so
 * every gateway replica refuses the session's JWTs.
 */
@Injectable()
export class BrowserSessionsService {
  constructor(
    private readonly repo: AuthRepository,
    private readonly members: IdentityMembersRepository,
    private readonly keys: SigningKeys,
    private readonly publisher: AuthPublisher,
    private readonly policy: TwoFactorPolicyCheck,
    private readonly config: IdentityConfig,
  ) {}

  /** Opens a browser session for `member` in the caller's transaction and signs its first session JWT. */
  async open(
    manager: EntityManager,
    member: IdentityMemberEntity,
    amr: AuthMethod[],
    refreshSha256: string,
    userAgent: string | undefined,
  ): Promise<SignedInV1> {
    const now = new Date();
    const session = await this.repo.insertSession(manager, {
      id: randomUUID(),
      workspaceId: member.workspaceId,
      memberId: member.id,
      amr,
      userAgent: userAgent ?? null,
      lastUsedAt: now,
      expiresAt: new Date(now.getTime() + this.config.REFRESH_IDLE_DAYS * DAY_MS),
    });
    await this.repo.insertRefreshSecret(manager, session.id, hashOf(refreshSha256));
    return this.signedIn(member, session);
  }

  /**
   * Rotates the presented refresh secret to `refreshSha256` and signs a new
   * session JWT. A rotated-out secret is reuse: the session ends (a racing
   * second refresh with the same secret is reuse too — the row lock orders them).
   */
  async refresh({ presentedSha256, refreshSha256, userAgent }: RefreshBrowserSessionV1): Promise<SignedInV1> {
    const now = new Date();
    const rotated = await this.repo.rotateRefreshSecret(
      hashOf(presentedSha256),
      hashOf(refreshSha256),
      now,
      new Date(now.getTime() + this.config.REFRESH_IDLE_DAYS * DAY_MS),
      userAgent ?? null,
    );
    if (rotated) return this.signedIn(rotated.member, rotated.session);
    // Not the current secret of a live session: refused, and a rotated-out one (reuse) ends its session.
    const outcome = await this.repo.transaction(async (manager) => {
      const secret = await this.repo.lockRefreshSecret(manager, hashOf(presentedSha256));
      if (!secret) return { refused: true as const };
      const session = await this.repo.lockSession(manager, secret.sessionId);
      if (!session || session.endedAt) return { refused: true as const };
      const now = new Date();
      if (secret.rotatedAt) {
        await this.end(manager, session, 'reuse', now);
        return { refused: true as const };
      }
      if (session.expiresAt <= now) return { refused: true as const };
      const member = await this.members.findInWorkspace(session.workspaceId, session.memberId, manager);
      if (!member || member.deactivatedAt) return { refused: true as const };
      await this.repo.markRotated(manager, secret.secretHash, now);
      await this.repo.insertRefreshSecret(manager, session.id, hashOf(refreshSha256));
      session.lastUsedAt = now;
      session.expiresAt = new Date(now.getTime() + this.config.REFRESH_IDLE_DAYS * DAY_MS);
      if (userAgent) session.userAgent = userAgent;
      await this.repo.saveSession(manager, session);
      return { refused: false as const, member, session };
    });
    // A reuse must stay ended: the refusal is thrown only after its transaction committed.
    if (outcome.refused) throw refreshRefused();
    return this.signedIn(outcome.member, outcome.session);
  }

  /** Logout: ends the session of the presented refresh secret (current or not); unknown secrets end nothing. */
  async signOut(presentedSha256: string): Promise<SignedOutV1> {
    return this.repo.transaction(async (manager) => {
      const secret = await this.repo.lockRefreshSecret(manager, hashOf(presentedSha256));
      const session = secret ? await this.repo.lockSession(manager, secret.sessionId) : null;
      if (!session || session.endedAt) return { ended: false };
      await this.end(manager, session, 'logout', new Date());
      return { ended: true, sid: session.id };
    });
  }

  /** `DELETE /v1/auth/sessions/{sid}`: one of the caller's sessions; another member's is a missing one (D-7). */
  async endOne(actor: ActorV1, sid: string): Promise<BrowserSessionV1> {
    const session = await this.repo.transaction(async (manager) => {
      const found = await this.repo.lockSession(manager, sid);
      if (!found || found.memberId !== actor.memberId || found.workspaceId !== actor.workspaceId) throw browserSessionNotFound(sid);
      if (!found.endedAt) await this.end(manager, found, 'ended', new Date());
      return found;
    });
    return toBrowserSessionV1(session, actor.sid);
  }

  async list(actor: ActorV1): Promise<BrowserSessionListV1> {
    const sessions = await this.repo.liveSessions(actor.workspaceId, actor.memberId);
    return { sessions: sessions.map((s) => toBrowserSessionV1(s, actor.sid)) };
  }

  /** What the gateway caches per `sid`: on or ended, and whether the member must enrol in two-factor first (D-42). */
  async check(sid: string): Promise<BrowserSessionStateV1> {
    const session = await this.repo.findSession(sid);
    if (!session) return { sid, memberId: sid, workspaceId: sid, active: false, twoFactorRequired: false };
    const member = await this.members.findInWorkspace(session.workspaceId, session.memberId);
    const active = session.endedAt === null && !!member && member.deactivatedAt === null;
    return {
      sid,
      memberId: session.memberId,
      workspaceId: session.workspaceId,
      active,
      twoFactorRequired: active && member ? await this.policy.enrolmentRequired(member) : false,
    };
  }

  /** Ends every live session of the member but `exceptSid` (password change, D-39). */
  async endOthers(manager: EntityManager, memberId: string, exceptSid: string | undefined, reason: EndReason): Promise<number> {
    const sessions = await this.repo.otherLiveSessions(manager, memberId, exceptSid);
    const now = new Date();
    for (const s of sessions) await this.end(manager, s, reason, now);
    return sessions.length;
  }

  private async end(manager: EntityManager, session: BrowserSessionEntity, reason: EndReason, at: Date): Promise<void> {
    session.endedAt = at;
    session.endedReason = reason;
    await this.repo.saveSession(manager, session);
    await this.publisher.ended(manager, {
      sid: session.id,
      memberId: session.memberId,
      workspaceId: session.workspaceId,
      endedAt: at.toISOString(),
    });
  }

  private async signedIn(member: IdentityMemberEntity, session: Pick<BrowserSessionEntity, 'id' | 'amr'>): Promise<SignedInV1> {
    const { token, expiresIn } = await this.keys.sign({
      memberId: member.id,
      workspaceId: member.workspaceId,
      sid: session.id,
      amr: session.amr,
    });
    return { accessToken: token, expiresIn, sid: session.id, member: toMemberV1(member) };
  }
}

export const toBrowserSessionV1 = (s: BrowserSessionEntity, currentSid: string | undefined): BrowserSessionV1 => ({
  sid: s.id,
  createdAt: s.createdAt.toISOString(),
  lastUsedAt: s.lastUsedAt.toISOString(),
  userAgent: s.userAgent,
  current: s.id === currentSid,
});
