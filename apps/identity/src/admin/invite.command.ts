import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { isEmail } from 'class-validator';
import { MEMBER_ROLES, secretSha256, type MemberRole } from '@worktrack/contracts';
import { CommandUsageError, DomainError, type ServiceConfig } from '@worktrack/platform';
import { AuthRepository } from '../auth/auth.repository';
import { DEFAULT_INVITE_HOURS, issueInvite, OPERATOR_INVITER } from '../auth/invites.service';
import { InvitesRepository } from '../auth/invites.repository';
import { IdentityConfig } from '../identity.config';
import { IdentityMembersRepository } from '../members/members.repository';
import { withAdminDataSource } from './admin-data-source';

const USAGE = 'usage: invite --workspace <name> --email <email> [--role owner|admin|member] [--hours <1..168>]';

export interface InviteInput {
  workspace: string;
  email: string;
  role?: MemberRole;
  hours: number;
}

export function parseInviteArgs(args: string[]): InviteInput {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: { workspace: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, hours: { type: 'string' } },
    }) as { values: Record<string, string | undefined> });
  } catch (err) {
    throw new CommandUsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const problems: string[] = [];
  const workspace = values.workspace?.trim() ?? '';
  if (workspace.length < 1 || workspace.length > 200) problems.push('--workspace is required (1 to 200 characters)');
  const email = values.email?.trim().toLowerCase() ?? '';
  if (!isEmail(email)) problems.push('--email must be an email address');
  const role = values.role as MemberRole | undefined;
  if (role !== undefined && !MEMBER_ROLES.includes(role)) problems.push('--role must be owner, admin or member');
  const hours = values.hours === undefined ? DEFAULT_INVITE_HOURS : Number(values.hours);
  if (!Number.isInteger(hours) || hours < 1 || hours > 168) problems.push('--hours must be a whole number from 1 to 168');
  if (problems.length > 0) throw new CommandUsageError(`${problems.join('; ')}\n${USAGE}`);
  return { workspace, email, role, hours };
}

/**
 * D-38: an invite link from the operator, printed as one JSON line
 * `{"invite_id","workspace_id","email","role","expires_at","accept_url"}`.
 * The workspace is created when missing (as D-14); the first member of a new
 * workspace is its owner. An existing member who has no password yet may be
 * invited too: the link sets their password (the demo owner of `npm start`).
 */
export async function inviteCommand(args: string[], config: ServiceConfig): Promise<void> {
  const input = parseInviteArgs(args);
  const publicUrl = config instanceof IdentityConfig ? config.PUBLIC_URL : new IdentityConfig().PUBLIC_URL;
  const secret = randomBytes(32).toString('base64url');
  await withAdminDataSource(config, async (dataSource) => {
    const members = new IdentityMembersRepository(dataSource);
    const repos = { invites: new InvitesRepository(dataSource), members, auth: new AuthRepository(dataSource) };
    try {
      const invite = await members.transaction(async (manager) => {
        const workspace = await members.upsertWorkspace(manager, randomUUID(), input.workspace);
        const existing = await members.findByEmail(manager, workspace.id, input.email);
        const first = (await members.countInWorkspace(manager, workspace.id)) === 0;
        const role = input.role ?? existing?.role ?? (first ? 'owner' : 'member');
        return issueInvite(manager, repos, {
          workspaceId: workspace.id,
          email: input.email,
          role,
          invitedBy: OPERATOR_INVITER,
          hours: input.hours,
          secretSha256: secretSha256(secret),
          allowExistingWithoutPassword: true,
        });
      });
      const line = {
        invite_id: invite.id,
        workspace_id: invite.workspaceId,
        email: invite.email,
        role: invite.role,
        expires_at: invite.expiresAt.toISOString(),
        accept_url: `${publicUrl}/accept-invite?token=${secret}`,
      };
      process.stdout.write(`${JSON.stringify(line)}\n`);
    } catch (err) {
      if (err instanceof DomainError) throw new CommandUsageError(`${err.code}: ${err.message}`);
      throw err;
    }
  });
}
