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

  /**
   * The usual refresh in one statement: rotates the presented secret to
   * `nextHash` when it is the session's current one, the session is live and
   * unexpired and its member active, and extends the session. The rotation is
   * an UPDATE of the presented secret's row, so of two refreshes racing with
   * one secret the second finds it rotated (Postgres re-checks `rotated_at IS
   * NULL` after the first commits) and gets null, as does every other case:
   * the caller then decides the refusal, reuse included, in a transaction.
   */
  async rotateRefreshSecret(
    presentedHash: Buffer,
    nextHash: Buffer,
    now: Date,
    expiresAt: Date,
    userAgent: string | null,
  ): Promise<{ session: Pick<BrowserSessionEntity, 'id' | 'amr'>; member: IdentityMemberEntity } | null> {
    const s = this.schema;
    const rows = await this.dataSource.query<MemberRow[]>(
      `WITH rotated AS (
         UPDATE "${s}".refresh_secrets r SET rotated_at = $3
           FROM "${s}".browser_sessions b, "${s}".members m
          WHERE r.secret_hash = $1 AND r.rotated_at IS NULL
            AND b.id = r.session_id AND b.ended_at IS NULL AND b.expires_at > $3
            AND m.id = b.member_id AND m.workspace_id = b.workspace_id AND m.deactivated_at IS NULL
         RETURNING r.session_id
       ), fresh AS (
         INSERT INTO "${s}".refresh_secrets (secret_hash, session_id, rotated_at) SELECT $2, session_id, NULL FROM rotated
       ), extended AS (
         UPDATE "${s}".browser_sessions b SET last_used_at = $3, expires_at = $4, user_agent = COALESCE($5, b.user_agent)
           FROM rotated WHERE b.id = rotated.session_id
         RETURNING b.id, b.amr, b.member_id, b.workspace_id
       )
       SELECT e.id AS sid, e.amr, m.id, m.workspace_id, m.kind, m.role, m.display_name, m.email, m.timezone,
              m.working_hours, m.plate_capacity, m.version, m.deactivated_at, m.created_by, m.created_at, m.updated_at
         FROM extended e JOIN "${s}".members m ON m.id = e.member_id AND m.workspace_id = e.workspace_id`,
      [presentedHash, nextHash, now, expiresAt, userAgent],
    );
    const row = rows[0];
    if (!row) return null;
    return { session: { id: row.sid, amr: row.amr }, member: memberOf(row) };
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

interface MemberRow {
  sid: string;
  amr: BrowserSessionEntity['amr'];
  id: string;
  workspace_id: string;
  kind: IdentityMemberEntity['kind'];
  role: IdentityMemberEntity['role'];
  display_name: string;
  email: string | null;
  timezone: string;
  working_hours: IdentityMemberEntity['workingHours'];
  plate_capacity: number;
  version: number;
  deactivated_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const memberOf = (r: MemberRow): IdentityMemberEntity =>
  Object.assign(new IdentityMemberEntity(), {
    id: r.id,
    workspaceId: r.workspace_id,
    kind: r.kind,
    role: r.role,
    displayName: r.display_name,
    email: r.email,
    timezone: r.timezone,
    workingHours: r.working_hours,
    plateCapacity: r.plate_capacity,
    version: r.version,
    deactivatedAt: r.deactivated_at,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
