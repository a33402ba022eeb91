import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DateTime } from 'luxon';
import {
  AssignPlateItem,
  CompletePlateItem,
  GetPlate,
  Header,
  MemberState,
  parsePayload,
  PlateItemAssigned,
  PlateItemCompleted,
  Topics,
  toMemberProfile,
  type ActorV1,
  type MemberV1,
  type WorkingHours,
} from '@worktrack/contracts';
import { DataSource } from 'typeorm';
import { CommandClient, readHeaders, startService } from '@worktrack/platform';
import { eventually, MessagePublisher, testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { PlateConfig } from '../src/plate.config';
import { PlateAppModule } from '../src/app.module';
import { PlateService } from '../src/plate/plate.service';

/** A partial match inside toEqual (typed). */
const like = (expected: Record<string, unknown>): unknown => expect.objectContaining(expected) as unknown;

const nineToFive = [{ start: '09:00', end: '17:00' }];
const MON_FRI: WorkingHours = { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive, sat: [], sun: [] };

/** The plate service through its real command topic, with members fed as identity publishes them. */
describe('plate: assign with capacity and overflow (D-32 … D-35)', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let rpc: CommandClient;
  let publisher: MessagePublisher;
  const workspace = randomUUID();

  const member = async (over: Partial<MemberV1> = {}): Promise<MemberV1> => {
    const m: MemberV1 = {
      memberId: randomUUID(),
      workspaceId: workspace,
      kind: 'human',
      role: 'member',
      displayName: 'm',
      email: null,
      timezone: 'UTC',
      workingHours: MON_FRI,
      plateCapacity: 6,
      version: 1,
      ...over,
    };
    await publisher.publish(MemberState, m, { key: m.memberId });
    return m;
  };
  const actor = (m: MemberV1, scope: 'full' | 'report_only' = 'full'): ActorV1 => ({
    memberId: m.memberId,
    workspaceId: m.workspaceId,
    scope,
    credential: 'api_token',
  });
  const assign = (by: MemberV1, to: MemberV1 | string, plateDate?: string, title = 'review the PR') =>
    rpc.send(
      AssignPlateItem,
      { actor: actor(by), assigneeId: typeof to === 'string' ? to : to.memberId, title, ...(plateDate ? { plateDate } : {}) },
      { key: by.memberId },
    );
  /** Waits until the plate service knows the member (its projection is fed asynchronously). */
  const known = (m: MemberV1) =>
    eventually(
      async () =>
        await rpc.send(GetPlate, { actor: actor(m) }, { key: m.memberId }).then(
          () => true,
          () => false,
        ),
      'member projection',
    );
  const nextWeekday = (weekday: number, from = DateTime.utc().plus({ days: 7 })): string => {
    let d = from;
    while (d.weekday !== weekday) d = d.plus({ days: 1 });
    return d.toISODate();
  };

  beforeAll(async () => {
    app = await startService('plate', PlateAppModule, testConfig(PlateConfig));
    kafka = testKafka('plate-it');
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 10_000 });
    await rpc.start();
    publisher = new MessagePublisher(kafka.client);
  });

  afterAll(async () => {
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
  });

  it('defaults to the assignee’s today in the assignee’s timezone, and refuses dates before it', async () => {
    const lead = await member();
    const kiritimati = await member({ timezone: 'Pacific/Kiritimati' }); // UTC+14
    const pagoPago = await member({ timezone: 'Pacific/Pago_Pago' }); // UTC-11: always a calendar day behind Kiritimati
    await Promise.all([known(lead), known(kiritimati), known(pagoPago)]);
    const aheadToday = DateTime.now().setZone('Pacific/Kiritimati').toISODate()!;
    const behindToday = DateTime.now().setZone('Pacific/Pago_Pago').toISODate()!;
    expect(aheadToday > behindToday).toBe(true);

    const a = await assign(lead, kiritimati);
    expect(a).toMatchObject({ plateDate: aheadToday, overflowed: false, activeCount: 1, capacity: 6, assigneeId: kiritimati.memberId });
    // A date that is still today in Pago Pago is already yesterday in Kiritimati.
    await expect(assign(lead, kiritimati, behindToday)).rejects.toMatchObject({ code: 'PLATE_DATE_IN_PAST' });
    await expect(assign(lead, pagoPago, behindToday)).resolves.toMatchObject({ plateDate: behindToday, overflowed: false });
  });

  it('counts open items, overflows a full day to the next working day with room, skipping the weekend', async () => {
    const lead = await member();
    const dev = await member({ plateCapacity: 2 });
    await Promise.all([known(lead), known(dev)]);
    const friday = nextWeekday(5);
    const monday = DateTime.fromISO(friday).plus({ days: 3 }).toISODate()!;
    expect(await assign(lead, dev, friday)).toMatchObject({ plateDate: friday, activeCount: 1, overflowed: false, capacity: 2 });
    expect(await assign(lead, dev, friday)).toMatchObject({ plateDate: friday, activeCount: 2, overflowed: false });
    expect(await assign(lead, dev, friday)).toMatchObject({ plateDate: monday, activeCount: 1, overflowed: true });
    // A requested non-working day with room is honoured (nothing overflows there).
    const saturday = DateTime.fromISO(friday).plus({ days: 1 }).toISODate()!;
    expect(await assign(lead, dev, saturday)).toMatchObject({ plateDate: saturday, overflowed: false });
  });

  it('never exceeds capacity under concurrency: 30 parallel assigns to a day with room for 3 (D-34)', async () => {
    const lead = await member();
    const dev = await member({ plateCapacity: 3 });
    await Promise.all([known(lead), known(dev)]);
    const day = nextWeekday(2); // a Tuesday
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => assign(lead, dev, day, `item ${i}`)));
    const perDay = new Map<string, number>();
    for (const r of results) perDay.set(r.plateDate, (perDay.get(r.plateDate) ?? 0) + 1);
    expect(perDay.get(day)).toBe(3);
    expect([...perDay.values()].every((n) => n <= 3)).toBe(true);
    expect([...perDay.keys()].filter((d) => d !== day).every((d) => d > day)).toBe(true);
    expect(results.filter((r) => r.plateDate === day).every((r) => !r.overflowed)).toBe(true);
    expect(results.filter((r) => r.plateDate !== day).every((r) => r.overflowed)).toBe(true);
    // 30 items, 3 a day, Mon-Fri: 10 working days.
    expect(perDay.size).toBe(10);
    for (const d of perDay.keys()) expect([6, 7]).not.toContain(DateTime.fromISO(d).weekday); // no weekend day
  });

  it('lets the assignee or the assigner complete an item, which frees its slot; others see nothing (D-7)', async () => {
    const lead = await member();
    const dev = await member({ plateCapacity: 1 });
    const bystander = await member();
    await Promise.all([known(lead), known(dev), known(bystander)]);
    const day = nextWeekday(3);
    const first = await assign(lead, dev, day);
    expect((await assign(lead, dev, day)).overflowed).toBe(true);
    await expect(
      rpc.send(CompletePlateItem, { actor: actor(bystander), plateItemId: first.plateItemId, done: true }, { key: 'x' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const done = await rpc.send(
      CompletePlateItem,
      { actor: actor(dev), plateItemId: first.plateItemId, done: true },
      { key: dev.memberId },
    );
    expect(done).toMatchObject({ done: true, assignedBy: lead.memberId, assigneeId: dev.memberId, plateDate: day });
    // Completing again changes nothing; the freed slot takes the next item.
    await rpc.send(CompletePlateItem, { actor: actor(lead), plateItemId: first.plateItemId, done: true }, { key: lead.memberId });
    expect(await assign(lead, dev, day)).toMatchObject({ plateDate: day, overflowed: false, activeCount: 1 });
    const plate = await rpc.send(GetPlate, { actor: actor(dev), date: day }, { key: dev.memberId });
    expect(plate).toMatchObject({ date: day, capacity: 1, activeCount: 1 });
    expect(plate.items.map((i) => i.done)).toEqual([true, false]);
  });

  it('announces assignments with the asked-for day and each completion once on plate.events, contract-shaped (D-32, D-33, D-51)', async () => {
    const lead = await member();
    const dev = await member({ plateCapacity: 1 });
    await Promise.all([known(lead), known(dev)]);
    const day = nextWeekday(1);
    const first = await assign(lead, dev, day);
    const second = await assign(lead, dev, day);
    expect(second.overflowed).toBe(true);
    await rpc.send(CompletePlateItem, { actor: actor(dev), plateItemId: first.plateItemId, done: true }, { key: dev.memberId });
    await rpc.send(CompletePlateItem, { actor: actor(lead), plateItemId: first.plateItemId, done: true }, { key: lead.memberId });
    const ours = new Set([first.plateItemId, second.plateItemId]);
    const seen: Array<{ type: string; key: string | null; payload: { plateItemId: string } }> = [];
    const reader = await kafka.client.startConsumer({
      groupId: kafka.client.group(`test-plate-events-${randomUUID()}`),
      topics: [kafka.client.topic(Topics.plateEvents)],
      fromBeginning: true,
      concurrency: 1,
      eachMessage: ({ message }) => {
        const headers = readHeaders(message.headers);
        const type = headers[Header.type];
        const plain: unknown = JSON.parse(String(message.value));
        let payload: { plateItemId: string };
        if (type === PlateItemAssigned.type) payload = parsePayload(PlateItemAssigned.payload, plain);
        else if (type === PlateItemCompleted.type) payload = parsePayload(PlateItemCompleted.payload, plain);
        else throw new Error(`unexpected ${type} on plate.events`);
        if (ours.has(payload.plateItemId)) seen.push({ type, key: message.key?.toString() ?? null, payload });
        return Promise.resolve();
      },
    });
    try {
      await eventually(() => seen.length >= 3, 'plate.events', 20_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(seen).toEqual([
        {
          type: 'plate.item.assigned',
          key: dev.memberId,
          payload: like({ plateItemId: first.plateItemId, plateDate: day, requestedDate: day, overflowed: false }),
        },
        {
          type: 'plate.item.assigned',
          key: dev.memberId,
          payload: like({
            plateItemId: second.plateItemId,
            plateDate: second.plateDate,
            requestedDate: day,
            overflowed: true,
          }),
        },
        {
          type: 'plate.item.completed',
          key: dev.memberId,
          payload: like({
            plateItemId: first.plateItemId,
            assigneeId: dev.memberId,
            completedBy: dev.memberId,
            plateDate: day,
            workspaceId: workspace,
          }),
        },
      ]);
    } finally {
      await reader.stop();
    }
  }, 60_000);

  it('refuses unknown and foreign assignees, and report_only credentials', async () => {
    const lead = await member();
    const foreign = await member({ workspaceId: randomUUID() });
    await Promise.all([known(lead), known(foreign)]);
    await expect(assign(lead, randomUUID())).rejects.toMatchObject({ code: 'ASSIGNEE_NOT_FOUND' });
    await expect(assign(lead, foreign)).rejects.toMatchObject({ code: 'ASSIGNEE_NOT_FOUND' });
    await expect(
      rpc.send(AssignPlateItem, { actor: actor(lead, 'report_only'), assigneeId: lead.memberId, title: 'x' }, { key: lead.memberId }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // An impossible date breaks the contract itself; no producer can send it.
    await expect(assign(lead, lead, '2026-02-30')).rejects.toThrow(/plateDate must be a day that exists in the calendar/);
  });

  it('keeps the latest member data from identity (timezone and capacity changes apply)', async () => {
    const lead = await member();
    const dev = await member({ plateCapacity: 1 });
    await Promise.all([known(lead), known(dev)]);
    const day = nextWeekday(4);
    await assign(lead, dev, day);
    await publisher.publish(MemberState, { ...dev, plateCapacity: 2, version: 2 }, { key: dev.memberId });
    await eventually(
      async () => (await rpc.send(GetPlate, { actor: actor(dev), date: day }, { key: dev.memberId })).capacity === 2,
      'capacity update',
    );
    expect(await assign(lead, dev, day)).toMatchObject({ plateDate: day, activeCount: 2, capacity: 2 });
  });

  it('keeps the newest version: a late, older member message does not undo a newer one', async () => {
    const dev = await member({ plateCapacity: 4, version: 5 });
    await known(dev);
    await publisher.publish(MemberState, { ...dev, plateCapacity: 1, version: 3 }, { key: dev.memberId });
    const marker = await member(); // published after the stale message on its own key: once it is known, the stale one was handled too
    await known(marker);
    await new Promise((r) => setTimeout(r, 500));
    expect((await rpc.send(GetPlate, { actor: actor(dev) }, { key: dev.memberId })).capacity).toBe(4);
  });

  it('assigns to a member its projection has not heard of when the command carries the resolved profile (read-your-writes)', async () => {
    const lead = await member();
    await known(lead);
    const fresh: MemberV1 = {
      memberId: randomUUID(),
      workspaceId: workspace,
      kind: 'human',
      role: 'member',
      displayName: 'new',
      email: null,
      timezone: 'Asia/Tokyo',
      workingHours: MON_FRI,
      plateCapacity: 1,
      version: 1,
    };
    const result = await rpc.send(
      AssignPlateItem,
      { actor: actor(lead), assigneeId: fresh.memberId, title: 'welcome', assignee: toMemberProfile(fresh) },
      { key: fresh.memberId },
    );
    expect(result).toMatchObject({ plateDate: DateTime.now().setZone('Asia/Tokyo').toISODate(), capacity: 1 });
    // A profile naming another workspace is not the assignee's.
    await expect(
      rpc.send(
        AssignPlateItem,
        { actor: actor(lead), assigneeId: fresh.memberId, title: 'x', assignee: { ...toMemberProfile(fresh), workspaceId: randomUUID() } },
        { key: fresh.memberId },
      ),
    ).rejects.toMatchObject({ code: 'ASSIGNEE_NOT_FOUND' });
    // The actor's own carried profile answers "today" before the projection knows them.
    const me = { ...actor(fresh), profile: toMemberProfile(fresh) };
    await expect(rpc.send(GetPlate, { actor: me }, { key: fresh.memberId })).resolves.toMatchObject({ capacity: 1, activeCount: 1 });
  });

  it('answers a caller it cannot place in a time zone UNAVAILABLE (retryable), never a UTC guess', async () => {
    const unknown: ActorV1 = { memberId: randomUUID(), workspaceId: workspace, scope: 'full', credential: 'api_token' };
    // Neither the projection nor the command knows the caller: no "today", and no page of a given day either.
    await expect(rpc.send(GetPlate, { actor: unknown }, { key: unknown.memberId })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(rpc.send(GetPlate, { actor: unknown, date: '2030-01-07' }, { key: unknown.memberId })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    // A profile carried for someone else is not the caller's.
    const other = await member({ timezone: 'Asia/Tokyo' });
    await expect(
      rpc.send(GetPlate, { actor: { ...unknown, profile: toMemberProfile(other) } }, { key: unknown.memberId }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('refuses a member the projection knows as deactivated, even with an older carried profile', async () => {
    const lead = await member();
    const gone = await member({ version: 1 });
    await known(gone);
    await publisher.publish(MemberState, { ...gone, version: 2, active: false }, { key: gone.memberId });
    await eventually(
      async () =>
        await rpc.send(AssignPlateItem, { actor: actor(lead), assigneeId: gone.memberId, title: 'x' }, { key: gone.memberId }).then(
          () => false,
          (err: { code?: string }) => err.code === 'ASSIGNEE_NOT_FOUND',
        ),
      'deactivation reaches the projection',
    );
    await expect(
      rpc.send(
        AssignPlateItem,
        { actor: actor(lead), assigneeId: gone.memberId, title: 'x', assignee: toMemberProfile(gone) },
        { key: gone.memberId },
      ),
    ).rejects.toMatchObject({ code: 'ASSIGNEE_NOT_FOUND' });
  });

  it('rebuilds every member from identity.members after its projection table was emptied and the service restarted', async () => {
    const members = await Promise.all(Array.from({ length: 20 }, (_, i) => member({ plateCapacity: 10 + i })));
    await Promise.all(members.map((m) => known(m)));
    await app.get(DataSource).query(`DELETE FROM plate.members`);
    await app.close();
    app = await startService('plate', PlateAppModule, testConfig(PlateConfig));
    // Right after start-up, without waiting: the replay ran before the service took commands.
    const capacities = await Promise.all(
      members.map(async (m) => (await rpc.send(GetPlate, { actor: actor(m) }, { key: m.memberId })).capacity),
    );
    expect(capacities).toEqual(members.map((m) => m.plateCapacity));
    const [{ n }] = await app.get(DataSource).query<Array<{ n: string }>>(`SELECT count(*) AS n FROM plate.members`);
    expect(Number(n)).toBeGreaterThanOrEqual(members.length);
  });
  it('a command delivered again (a replica killed before its offset commit) assigns one item, also when two replicas handle it at once', async () => {
    const lead = await member();
    const dev = await member({ plateCapacity: 3 });
    await Promise.all([known(lead), known(dev)]);
    const day = nextWeekday(3);
    const service = app.get(PlateService);
    const command = { actor: actor(lead), assigneeId: dev.memberId, title: 'deliver me twice', plateDate: day };
    const messageId = randomUUID();
    const first = await service.assign(command, messageId);
    const again = await service.assign(command, messageId);
    expect(again).toEqual(first);
    const racedId = randomUUID();
    const raced = await Promise.all([service.assign(command, racedId), service.assign(command, racedId), service.assign(command, racedId)]);
    expect(new Set(raced.map((r) => r.plateItemId)).size).toBe(1);
    const plate = await rpc.send(GetPlate, { actor: actor(dev), date: day }, { key: dev.memberId });
    expect(plate.items.map((i) => i.title)).toEqual(['deliver me twice', 'deliver me twice']);
    expect(plate.activeCount).toBe(2);
  });
});
