import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { IANAZone } from 'luxon';
import { isEmail } from 'class-validator';
import { MEMBER_KINDS, MEMBER_ROLES, type MemberKind, type MemberRole } from '@worktrack/contracts';
import { SignedCursor, CommandUsageError, type ServiceConfig } from '@worktrack/platform';
import { MembersPublisher } from '../members/members.publisher';
import { DEFAULT_PLATE_CAPACITY, DEFAULT_WORKING_HOURS, toMemberV1 } from '../members/member.mapper';
import { IdentityMembersRepository } from '../members/members.repository';
import { TokensPublisher } from '../tokens/tokens.publisher';
import { TokensRepository } from '../tokens/tokens.repository';
import { TokensService } from '../tokens/tokens.service';
import { withAdminDataSource } from './admin-data-source';

const USAGE =
  'usage: create-member --workspace <name> --email <email> [--timezone <IANA>] [--role owner|admin|member] [--capacity <n>] [--kind human|agent] [--name <display name>]';

export interface CreateMemberInput {
  workspace: string;
  email: string;
  timezone: string;
  role?: MemberRole;
  capacity: number;
  kind: MemberKind;
  name: string;
}

/** Parses and validates the arguments; every problem is a CommandUsageError naming the option. */
export function parseCreateMemberArgs(args: string[]): CreateMemberInput {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        workspace: { type: 'string' },
        email: { type: 'string' },
        timezone: { type: 'string' },
        role: { type: 'string' },
        capacity: { type: 'string' },
        kind: { type: 'string' },
        name: { type: 'string' },
      },
    }) as { values: Record<string, string | undefined> });
  } catch (err) {
    throw new CommandUsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const problems: string[] = [];
  const workspace = values.workspace?.trim() ?? '';
  if (workspace.length < 1 || workspace.length > 200) problems.push('--workspace is required (1 to 200 characters)');
  const email = values.email?.trim().toLowerCase() ?? '';
  if (!isEmail(email)) problems.push('--email must be an email address');
  const timezone = values.timezone ?? 'UTC';
  if (!IANAZone.isValidZone(timezone)) problems.push(`--timezone must be an IANA time zone (got ${timezone})`);
  const role = values.role as MemberRole | undefined;
  if (role !== undefined && !MEMBER_ROLES.includes(role)) problems.push('--role must be owner, admin or member');
  const kind = (values.kind ?? 'human') as MemberKind;
  if (!MEMBER_KINDS.includes(kind)) problems.push('--kind must be human or agent');
  const capacity = values.capacity === undefined ? DEFAULT_PLATE_CAPACITY : Number(values.capacity);
  if (!Number.isInteger(capacity) || capacity < 0 || capacity > 1000) problems.push('--capacity must be a whole number from 0 to 1000');
  if (problems.length > 0) throw new CommandUsageError(`${problems.join('; ')}\n${USAGE}`);
  return { workspace, email, timezone, role, capacity, kind, name: values.name?.trim() || email.split('@')[0] };
}

/**
 * D-14: creates the workspace if needed and the member (an existing member
 * with that email is kept as it is), mints a `full` token, and prints one JSON
 * line `{"workspace_id","member_id","token"}`. Talks to identity's schema with
 * identity's own code, as the service does (migrating it first if needed); the
 * running service's outbox relay publishes the member-changed event.
 */
export async function createMemberCommand(args: string[], config: ServiceConfig): Promise<void> {
  const input = parseCreateMemberArgs(args);
  await withAdminDataSource(config, async (dataSource) => {
    const members = new IdentityMembersRepository(dataSource);
    const publisher = new MembersPublisher();
    const tokens = new TokensService(
      new TokensRepository(dataSource),
      members,
      new TokensPublisher(),
      new SignedCursor(config.CURSOR_SECRET),
    );
    const result = await members.transaction(async (manager) => {
      const workspace = await members.upsertWorkspace(manager, randomUUID(), input.workspace);
      let member = await members.findByEmail(manager, workspace.id, input.email);
      if (!member) {
        const first = (await members.countInWorkspace(manager, workspace.id)) === 0;
        member = await members.insertMember(manager, {
          id: randomUUID(),
          workspaceId: workspace.id,
          kind: input.kind,
          role: input.role ?? (first ? 'owner' : 'member'),
          displayName: input.name,
          email: input.email,
          timezone: input.timezone,
          workingHours: DEFAULT_WORKING_HOURS,
          plateCapacity: input.capacity,
          createdBy: null,
        });
        await publisher.changed(manager, toMemberV1(member));
      }
      const token = await tokens.mint(manager, member, 'bootstrap', 'full');
      return { workspace_id: workspace.id, member_id: member.id, token: token.token };
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  });
}
