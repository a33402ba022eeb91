import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { ListMembers, type ActorV1, type ListMembersV1, type MemberKind, type MemberListV1, type MemberRole } from '@worktrack/contracts';
import { CommandClient, DomainError, startService } from '@worktrack/platform';
import { testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { IdentityAppModule } from '../src/app.module';
import { IdentityConfig } from '../src/identity.config';
import { DEFAULT_PLATE_CAPACITY, DEFAULT_WORKING_HOURS } from '../src/members/member.mapper';
import { IdentityMembersRepository } from '../src/members/members.repository';
import { TokensService } from '../src/tokens/tokens.service';

/** `GET /v1/members` through identity's real command topic: who sees whom, paging and cursors (D-7, D-29, D-52 visibility). */
describe('identity: listing the workspace members', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let rpc: CommandClient;
  const run = randomUUID().slice(0, 8);
  const ids: Record<'owner' | 'admin' | 'plain' | 'agent' | 'gone' | 'stranger', string> = {
    owner: randomUUID(),
    admin: randomUUID(),
    plain: randomUUID(),
    agent: randomUUID(),
    gone: randomUUID(),
    stranger: randomUUID(),
  };
  let workspaceId = '';
  let otherWorkspaceId = '';
  let members: IdentityMembersRepository;
  let add: (id: string, wid: string, role: MemberRole, kind: MemberKind, name: string) => Promise<unknown>;

  const actor = (memberId: string, scope: ActorV1['scope'] = 'full', wid = workspaceId): ActorV1 => ({
    memberId,
    workspaceId: wid,
    scope,
    credential: 'api_token',
  });
  const list = (payload: ListMembersV1): Promise<MemberListV1> => rpc.send(ListMembers, payload, { key: payload.actor.memberId });
  const codeOf = (p: Promise<unknown>): Promise<string> =>
    p.then(
      () => 'OK',
      (err: unknown) => (err instanceof DomainError ? err.code : String(err)),
    );
  const all = async (payload: ListMembersV1): Promise<MemberListV1['members']> => {
    const out: MemberListV1['members'] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 20; i++) {
      const page = await list({ ...payload, ...(cursor ? { cursor } : {}) });
      out.push(...page.members);
      if (!page.nextCursor) return out;
      cursor = page.nextCursor;
    }
    throw new Error('paging did not end');
  };

  beforeAll(async () => {
    app = await startService('identity', IdentityAppModule, testConfig(IdentityConfig));
    kafka = testKafka('identity-members-it');
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 10_000 });
    await rpc.start();
    members = app.get(IdentityMembersRepository);
    add = (id: string, wid: string, role: MemberRole, kind: MemberKind, name: string) =>
      members.transaction((manager) =>
        members.insertMember(manager, {
          id,
          workspaceId: wid,
          kind,
          role,
          displayName: name,
          email: kind === 'agent' ? null : `${name.toLowerCase()}-${run}@example.com`,
          timezone: 'Europe/Berlin',
          workingHours: DEFAULT_WORKING_HOURS,
          plateCapacity: DEFAULT_PLATE_CAPACITY,
          createdBy: null,
        }),
      );
    await members.transaction(async (manager) => {
      workspaceId = (await members.upsertWorkspace(manager, randomUUID(), `members-${run}`)).id;
      otherWorkspaceId = (await members.upsertWorkspace(manager, randomUUID(), `members-other-${run}`)).id;
    });
    // One after the other, so the creation order is the listing order.
    await add(ids.owner, workspaceId, 'owner', 'human', 'Olga');
    await add(ids.admin, workspaceId, 'admin', 'human', 'Adam');
    await add(ids.plain, workspaceId, 'member', 'human', 'Pia');
    await add(ids.agent, workspaceId, 'member', 'agent', 'Builder');
    await add(ids.gone, workspaceId, 'member', 'human', 'Gus');
    await add(ids.stranger, otherWorkspaceId, 'owner', 'human', 'Stan');
    await app.get(DataSource).query(`UPDATE identity.members SET deactivated_at = now() WHERE id = $1`, [ids.gone]);
    // The agent's token was used at 10:17:42 (identity records the minute).
    const token = await app.get(TokensService).create(actor(ids.agent), 'agent token', 'report_only');
    await app.get(DataSource).query(`UPDATE identity.api_tokens SET last_used_at = '2026-01-05T10:17:42Z' WHERE id = $1`, [token.tokenId]);
  });

  afterAll(async () => {
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
  });

  it('shows owners and admins every member of their workspace only, oldest first, with role, capacity, status and last use', async () => {
    for (const manager of [ids.owner, ids.admin]) {
      const listed = await all({ actor: actor(manager), limit: 100 });
      expect(listed.map((m) => m.memberId)).toEqual([ids.owner, ids.admin, ids.plain, ids.agent, ids.gone]);
      const gus = listed.find((m) => m.memberId === ids.gone)!;
      expect(gus).toMatchObject({
        displayName: 'Gus',
        kind: 'human',
        role: 'member',
        active: false,
        plateCapacity: DEFAULT_PLATE_CAPACITY,
      });
      const agent = listed.find((m) => m.memberId === ids.agent)!;
      expect(agent).toMatchObject({ kind: 'agent', email: null, lastSeenAt: '2026-01-05T10:17:00.000Z', active: true });
      expect(listed.find((m) => m.memberId === ids.plain)?.lastSeenAt).toBeNull();
    }
    expect((await all({ actor: actor(ids.owner), kind: 'agent' })).map((m) => m.memberId)).toEqual([ids.agent]);
    expect((await all({ actor: actor(ids.stranger, 'full', otherWorkspaceId) })).map((m) => m.memberId)).toEqual([ids.stranger]);
  });

  it("shows a plain member the active teammates' id, name and kind only, and its own row whole", async () => {
    const listed = await all({ actor: actor(ids.plain) });
    expect(listed.map((m) => m.memberId)).toEqual([ids.owner, ids.admin, ids.plain, ids.agent]);
    expect(listed.find((m) => m.memberId === ids.owner)).toEqual({ memberId: ids.owner, kind: 'human', displayName: 'Olga' });
    expect(listed.find((m) => m.memberId === ids.plain)).toMatchObject({ role: 'member', active: true });
  });

  it('shows a report_only credential its own member only', async () => {
    expect((await all({ actor: actor(ids.agent, 'report_only') })).map((m) => m.memberId)).toEqual([ids.agent]);
    expect((await all({ actor: actor(ids.owner, 'report_only') })).map((m) => m.memberId)).toEqual([ids.owner]);
  });

  it('pages without skipping or repeating while members join, with cursors bound to the caller and the filter (D-29)', async () => {
    const first = await list({ actor: actor(ids.owner), limit: 2 });
    expect(first.members.map((m) => m.memberId)).toEqual([ids.owner, ids.admin]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const cursor = first.nextCursor!;
    expect(await codeOf(list({ actor: actor(ids.admin), limit: 2, cursor }))).toBe('INVALID_CURSOR');
    expect(await codeOf(list({ actor: actor(ids.owner), kind: 'human', limit: 2, cursor }))).toBe('INVALID_CURSOR');
    expect(await codeOf(list({ actor: actor(ids.owner), limit: 2, cursor: `${cursor.slice(0, -2)}xx` }))).toBe('INVALID_CURSOR');
    expect(await codeOf(list({ actor: actor(ids.owner), limit: 2, cursor: 'not-a-cursor' }))).toBe('INVALID_CURSOR');
    const late = randomUUID();
    await add(late, workspaceId, 'member', 'human', 'Lena');
    const second = await list({ actor: actor(ids.owner), limit: 2, cursor });
    expect(second.members.map((m) => m.memberId)).toEqual([ids.plain, ids.agent]);
    const third = await list({ actor: actor(ids.owner), limit: 2, cursor: second.nextCursor! });
    expect(third.members.map((m) => m.memberId)).toEqual([ids.gone, late]);
    expect(third.nextCursor).toBeNull();
  });

  it('refuses a deactivated caller and a foreign one like a missing credential (D-7)', async () => {
    expect(await codeOf(list({ actor: actor(ids.gone) }))).toBe('UNAUTHENTICATED');
    expect(await codeOf(list({ actor: actor(ids.stranger) }))).toBe('UNAUTHENTICATED');
  });

  it('refuses a page size out of range in the contract, before anything is sent', async () => {
    expect(await codeOf(list({ actor: actor(ids.owner), limit: 0 }))).toMatch(/ContractViolation/);
    expect(await codeOf(list({ actor: actor(ids.owner), limit: 101 }))).toMatch(/ContractViolation/);
  });
});
