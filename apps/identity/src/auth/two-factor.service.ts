import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  type ActorV1,
  type ConfirmTotpV1,
  type TotpEnrolmentV1,
  type TotpStateV1,
  type UpdateWorkspaceV1,
  type WorkspaceV1,
} from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { IdentityMembersRepository } from '../members/members.repository';
import { unauthenticated } from '../members/members.errors';
import { AuthRepository } from './auth.repository';
import { SecretBox } from '@worktrack/platform';
import { acceptTotp, newTotpSecret, totpUri } from './totp';
import { CredentialEntity } from './entities/credential.entity';

const wrongCode = (): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The code is not right.', [{ path: 'code', issue: 'not the current code' }]);

/**
 * Two-factor (D-42): TOTP enrolment and removal, and the workspace's
 * `require_two_factor`. The secret is sealed at rest; recovery codes are
 * stored as hashes (drawn by the gateway, which shows them once).
 */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly repo: AuthRepository,
    private readonly members: IdentityMembersRepository,
    private readonly box: SecretBox,
  ) {}

  async start(actor: ActorV1): Promise<TotpEnrolmentV1> {
    const member = await this.members.findInWorkspace(actor.workspaceId, actor.memberId);
    if (!member || member.deactivatedAt) throw unauthenticated();
    const secret = newTotpSecret();
    await this.repo.transaction(async (manager) => {
      const credential =
        (await this.repo.lockCredential(manager, member.id)) ??
        manager.create(CredentialEntity, { memberId: member.id, passwordHash: null, totpSecret: null, totpLastStep: null });
      credential.totpPending = this.box.seal(secret);
      await this.repo.saveCredential(manager, credential);
    });
    return { secret, otpauthUri: totpUri(secret, 'worktrack', member.email ?? member.displayName) };
  }

  async confirm({ actor, code, recoveryCodeSha256s }: ConfirmTotpV1): Promise<TotpStateV1> {
    return this.repo.transaction(async (manager) => {
      const credential = await this.repo.lockCredential(manager, actor.memberId);
      if (!credential?.totpPending) {
        throw new DomainError(ErrorCode.VALIDATION_FAILED, 'Start enrolment first.', [{ path: 'code', issue: 'no enrolment started' }]);
      }
      const step = acceptTotp(this.box.open(credential.totpPending), code, null);
      if (step === null) throw wrongCode();
      credential.totpSecret = credential.totpPending;
      credential.totpPending = null;
      credential.totpLastStep = String(step);
      await this.repo.saveCredential(manager, credential);
      await this.repo.replaceRecoveryCodes(
        manager,
        actor.memberId,
        recoveryCodeSha256s.map((h) => Buffer.from(h, 'hex')),
      );
      return { totp: 'on' as const };
    });
  }

  async disable(actor: ActorV1, code: string): Promise<TotpStateV1> {
    return this.repo.transaction(async (manager) => {
      const credential = await this.repo.lockCredential(manager, actor.memberId);
      if (!credential?.totpSecret) return { totp: 'off' as const };
      // Any code of the window: turning off is done by a signed-in member, and a replay turns off nothing more.
      if (acceptTotp(this.box.open(credential.totpSecret), code, null) === null) throw wrongCode();
      credential.totpSecret = null;
      credential.totpLastStep = null;
      await this.repo.saveCredential(manager, credential);
      await this.repo.deleteRecoveryCodes(manager, actor.memberId);
      return { totp: 'off' as const };
    });
  }

  async updateWorkspace({ actor, requireTwoFactor }: UpdateWorkspaceV1): Promise<WorkspaceV1> {
    const member = await this.members.findInWorkspace(actor.workspaceId, actor.memberId);
    if (!member || member.deactivatedAt) throw unauthenticated();
    if (member.role !== 'owner' || actor.scope !== 'full') throw new DomainError(ErrorCode.FORBIDDEN, 'Only owners change the workspace.');
    if (requireTwoFactor !== 'none' && !(await this.repo.findCredential(member.id))?.totpSecret) {
      throw new DomainError(ErrorCode.FORBIDDEN, 'Turn two-factor on for yourself before requiring it of others.');
    }
    return this.repo.transaction(async (manager) => {
      const workspace = await this.repo.workspace(actor.workspaceId, manager);
      if (!workspace) throw unauthenticated();
      workspace.requireTwoFactor = requireTwoFactor;
      await this.repo.saveWorkspace(manager, workspace);
      return { workspaceId: workspace.id, name: workspace.name, requireTwoFactor };
    });
  }
}
