import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, MoreThan, Not, type EntityManager } from 'typeorm';
import { SchemaRepository } from '@worktrack/platform';
import { IdentityMemberEntity } from '../members/entities/member.entity';
import { WorkspaceEntity } from '../members/entities/workspace.entity';
import { BrowserSessionEntity } from './entities/browser-session.entity';
import { CredentialEntity } from './entities/credential.entity';
import { RecoveryCodeEntity } from './entities/recovery-code.entity';
import { RefreshSecretEntity } from './entities/refresh-secret.entity';
import { SignInFailureEntity } from './entities/sign-in-failure.entity';

/** Credentials, browser sessions and their refresh secrets, sign-in failures (D-39, D-40, D-42). */
@Injectable()
export class AuthRepository extends SchemaRepository {
  constructor(dataSource: DataSource) {
    super(dataSource);
  }

  /**
   * The human member this email signs in as, with their credential: an
   * active member holding a password; when the email is a member of several
   * workspaces, the one whose password changed last.
   */
  async signInCandidate(email: string): Promise<{ member: IdentityMemberEntity; credential: CredentialEntity } | null> {
    const row = await this.dataSource.manager
      .createQueryBuilder(CredentialEntity, 'c')
      .innerJoinAndSelect('c.member', 'm')
      .where('m.email = :email AND m.deactivated_at IS NULL AND m.kind = :kind AND c.password_hash IS NOT NULL', { email, kind: 'human' })
      .orderBy('c.updated_at', 'DESC')
      .getOne();
    if (!row?.member) return null;
    return { member: row.member, credential: row };
  }

  findCredential(memberId: string, manager: EntityManager = this.dataSource.manager): Promise<CredentialEntity | null> {
    return manager.findOne(CredentialEntity, { where: { memberId } });
  }

  lockCredential(manager: EntityManager, memberId: string): Promise<CredentialEntity | null> {
    return manager.findOne(CredentialEntity, { where: { memberId }, lock: { mode: 'pessimistic_write' } });
  }

  async setPassword(manager: EntityManager, memberId: string, passwordHash: string): Promise<void> {
    await manager.upsert(CredentialEntity, { memberId, passwordHash, updatedAt: new Date() }, ['memberId']);
  }

  saveCredential(manager: EntityManager, credential: CredentialEntity): Promise<CredentialEntity> {
    return manager.save(CredentialEntity, credential);
  }

  workspace(workspaceId: string, manager: EntityManager = this.dataSource.manager): Promise<WorkspaceEntity | null> {
    return manager.findOne(WorkspaceEntity, { where: { id: workspaceId } });
  }

  saveWorkspace(manager: EntityManager, workspace: WorkspaceEntity): Promise<WorkspaceEntity> {
    return manager.save(WorkspaceEntity, workspace);
  }

  // Sign-in failures (D-39).

  countFailures(email: string, address: string, since: Date): Promise<number> {
    return this.dataSource.manager.count(SignInFailureEntity, { where: { email, address, failedAt: MoreThan(since) } });
  }

  async recordFailure(email: string, address: string, at: Date): Promise<void> {
    await this.dataSource.manager.insert(SignInFailureEntity, { email, address, failedAt: at });
    // Keeps the table to the window that matters.
    await this.dataSource.manager
      .createQueryBuilder()
      .delete()
      .from(SignInFailureEntity)
      .where('email = :email AND address = :address AND failed_at < :old', { email, address, old: new Date(at.getTime() - 3_600_000) })
      .execute();
  }

  async clearFailures(email: string, address: string): Promise<void> {
    await this.dataSource.manager.delete(SignInFailureEntity, { email, address });
  }

  // Browser sessions (D-40).

  async insertSession(
    manager: EntityManager,
    session: Omit<BrowserSessionEntity, 'createdAt' | 'member' | 'endedAt' | 'endedReason'>,
  ): Promise<BrowserSessionEntity> {
    return manager.save(BrowserSessionEntity, manager.create(BrowserSessionEntity, { ...session, endedAt: null, endedReason: null }));
  }

  async insertRefreshSecret(manager: EntityManager, sessionId: string, secretHash: Buffer): Promise<void> {
    await manager.insert(RefreshSecretEntity, { sessionId, secretHash, rotatedAt: null });
  }

  /** The refresh secret with this hash, locked: two refreshes with one secret are decided one after the other. */
  lockRefreshSecret(manager: EntityManager, secretHash: Buffer): Promise<RefreshSecretEntity | null> {
    return manager.findOne(RefreshSecretEntity, { where: { secretHash }, lock: { mode: 'pessimistic_write' } });
  }

  async markRotated(manager: EntityManager, secretHash: Buffer, at: Date): Promise<void> {
    await manager.update(RefreshSecretEntity, { secretHash }, { rotatedAt: at });
  }

  lockSession(manager: EntityManager, sid: string): Promise<BrowserSessionEntity | null> {
    return manager.findOne(BrowserSessionEntity, { where: { id: sid }, lock: { mode: 'pessimistic_write' } });
  }

  findSession(sid: string): Promise<BrowserSessionEntity | null> {
    return this.dataSource.manager.findOne(BrowserSessionEntity, { where: { id: sid } });
  }

  saveSession(manager: EntityManager, session: BrowserSessionEntity): Promise<BrowserSessionEntity> {
    return manager.save(BrowserSessionEntity, session);
  }

  /** The member's browser sessions that have not ended, newest first. */
  liveSessions(workspaceId: string, memberId: string, manager: EntityManager = this.dataSource.manager): Promise<BrowserSessionEntity[]> {
    return manager.find(BrowserSessionEntity, {
      where: { workspaceId, memberId, endedAt: IsNull(), expiresAt: MoreThan(new Date()) },
      order: { createdAt: 'DESC' },
      take: 200,
    });
  }

  /** Every live session of the member but `exceptSid`, locked. */
  otherLiveSessions(manager: EntityManager, memberId: string, exceptSid: string | undefined): Promise<BrowserSessionEntity[]> {
    return manager.find(BrowserSessionEntity, {
      where: { memberId, endedAt: IsNull(), ...(exceptSid ? { id: Not(exceptSid) } : {}) },
      lock: { mode: 'pessimistic_write' },
    });
  }

  // Recovery codes (D-42).

  async replaceRecoveryCodes(manager: EntityManager, memberId: string, hashes: Buffer[]): Promise<void> {
    await manager.delete(RecoveryCodeEntity, { memberId });
    await manager.insert(
      RecoveryCodeEntity,
      hashes.map((codeHash) => ({ memberId, codeHash, usedAt: null })),
    );
  }

  /** Uses a recovery code once: true when it was unused. */
  async useRecoveryCode(manager: EntityManager, memberId: string, codeHash: Buffer, at: Date): Promise<boolean> {
    const result = await manager.update(RecoveryCodeEntity, { memberId, codeHash, usedAt: IsNull() }, { usedAt: at });
    return (result.affected ?? 0) > 0;
  }

  async deleteRecoveryCodes(manager: EntityManager, memberId: string): Promise<void> {
    await manager.delete(RecoveryCodeEntity, { memberId });
  }
}
