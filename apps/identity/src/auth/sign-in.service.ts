import { Injectable } from '@nestjs/common';
import type { ChangePasswordV1, PasswordChangedV1, SignedInV1, SignInV1 } from '@worktrack/contracts';
import { IdentityConfig } from '../identity.config';
import { IdentityMembersRepository } from '../members/members.repository';
import { unauthenticated } from '../members/members.errors';
import { invalidCredentials, passwordLoginOff, secondFactorRequired, tooManyFailures, wrongCurrentPassword } from './auth.errors';
import { AuthRepository } from './auth.repository';
import { BrowserSessionsService } from './browser-sessions.service';
import { PasswordHasher } from './password-hasher';
import { SecretBox } from '@worktrack/platform';
import { acceptTotp } from './totp';

/** D-39: five failures per (email, address) in this window refuse that pair only. */
const FAILURE_WINDOW_MS = 15 * 60_000;
const MAX_FAILURES = 5;

/** Password sign-in and password change (D-39), with the second factor (D-42). */
@Injectable()
export class SignInService {
  constructor(
    private readonly repo: AuthRepository,
    private readonly members: IdentityMembersRepository,
    private readonly hasher: PasswordHasher,
    private readonly sessions: BrowserSessionsService,
    private readonly box: SecretBox,
    private readonly config: IdentityConfig,
  ) {}

  /**
   * Unknown email, deactivated member and wrong password cost one argon2id
   * verification each and get the same INVALID_CREDENTIALS; each is a failure
   * of the (email, address) pair.
   */
  async signIn(command: SignInV1): Promise<SignedInV1> {
    if (!this.config.PASSWORD_LOGIN) throw passwordLoginOff();
    const email = command.email.trim().toLowerCase();
    const now = new Date();
    if ((await this.repo.countFailures(email, command.address, new Date(now.getTime() - FAILURE_WINDOW_MS))) >= MAX_FAILURES) {
      throw tooManyFailures();
    }
    const candidate = await this.repo.signInCandidate(email);
    const matches = await this.hasher.verify(candidate?.credential.passwordHash, command.passwordDigest);
    if (!candidate || !matches) {
      await this.repo.recordFailure(email, command.address, now);
      throw invalidCredentials();
    }
    const { member } = candidate;
    const result = await this.repo.transaction(async (manager) => {
      const credential = await this.repo.lockCredential(manager, member.id);
      const amr: Array<'pwd' | 'otp'> = ['pwd'];
      if (credential?.totpSecret) {
        if (command.totpCode) {
          const last = credential.totpLastStep === null ? null : Number(credential.totpLastStep);
          const step = acceptTotp(this.box.open(credential.totpSecret), command.totpCode, last);
          if (step === null) return { failed: true as const };
          credential.totpLastStep = String(step);
          await this.repo.saveCredential(manager, credential);
        } else if (command.recoveryCodeSha256) {
          if (!(await this.repo.useRecoveryCode(manager, member.id, Buffer.from(command.recoveryCodeSha256, 'hex'), now))) {
            return { failed: true as const };
          }
        } else {
          return { secondFactor: true as const };
        }
        amr.push('otp');
      }
      return { signedIn: await this.sessions.open(manager, member, amr, command.refreshSha256, command.userAgent) };
    });
    if ('secondFactor' in result) throw secondFactorRequired();
    if ('failed' in result) {
      await this.repo.recordFailure(email, command.address, now);
      throw invalidCredentials();
    }
    await this.repo.clearFailures(email, command.address);
    return result.signedIn;
  }

  /** D-39: checks the current password, stores the new one, ends the member's other browser sessions. */
  async changePassword({ actor, currentDigest, newDigest }: ChangePasswordV1): Promise<PasswordChangedV1> {
    const member = await this.members.findInWorkspace(actor.workspaceId, actor.memberId);
    if (!member || member.deactivatedAt) throw unauthenticated();
    const credential = await this.repo.findCredential(member.id);
    if (!(await this.hasher.verify(credential?.passwordHash, currentDigest))) throw wrongCurrentPassword();
    const hash = await this.hasher.hash(newDigest);
    const endedSessions = await this.repo.transaction(async (manager) => {
      await this.repo.setPassword(manager, member.id, hash);
      return this.sessions.endOthers(manager, member.id, actor.sid, 'password');
    });
    return { endedSessions };
  }
}
