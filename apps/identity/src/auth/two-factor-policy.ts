import { Injectable } from '@nestjs/common';
import type { IdentityMemberEntity } from '../members/entities/member.entity';
import { AuthRepository } from './auth.repository';

/** D-42: whether the workspace's `require_two_factor` covers a member who has not enrolled yet. */
@Injectable()
export class TwoFactorPolicyCheck {
  constructor(private readonly repo: AuthRepository) {}

  async enrolmentRequired(member: IdentityMemberEntity): Promise<boolean> {
    const workspace = await this.repo.workspace(member.workspaceId);
    const policy = workspace?.requireTwoFactor ?? 'none';
    const covered = policy === 'all' || (policy === 'admins' && (member.role === 'owner' || member.role === 'admin'));
    if (!covered) return false;
    const credential = await this.repo.findCredential(member.id);
    return !credential?.totpSecret;
  }
}
