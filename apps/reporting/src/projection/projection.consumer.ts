import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { EventsLinked, EventsStored, MemberState, PlateItemAssigned, SessionChanged, UsageLinked, UsageStored, type PayloadOf } from '@worktrack/contracts';
import { HandleEvents, type ContractContext } from '@worktrack/platform';
import { ProjectionRepository, type Positioned, type Touched } from './projection.repository';

/** The payloads of a call with their positions (one partition, offset order). */
const positioned = <T>(payloads: T[], ctx: ContractContext): Array<Positioned<T>> =>
  ctx.metas.map((meta, i) => ({ topic: meta.topic, partition: meta.partition, offset: meta.offset, payload: payloads[i]! }));

/**
 * The reporting projection (ADR 0018): fed only by topics — session
 * changes, events stored and linked, usage stored and linked, members, plate
 * items. Each call applies a partition's messages, recomputes the touched
 * buckets and stores the consumed position in one transaction.
 */
@Controller()
export class ProjectionConsumer {
  constructor(private readonly projection: ProjectionRepository) {}

  @HandleEvents(SessionChanged, { group: 'reporting.sessions', concurrency: 6, reportLag: true })
  sessions(@Payload() changes: Array<PayloadOf<typeof SessionChanged>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(changes, ctx), (m, fresh) => this.projection.sessions(m, fresh));
  }

  @HandleEvents(EventsStored, { group: 'reporting.events', concurrency: 6, reportLag: true })
  events(@Payload() batches: Array<PayloadOf<typeof EventsStored>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(batches, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const b of fresh) touched.push(...(await this.projection.events(m, b.memberId, b.workspaceId, b.events)));
      return touched;
    });
  }

  @HandleEvents(EventsLinked, { group: 'reporting.links', concurrency: 6, reportLag: true })
  eventLinks(@Payload() batches: Array<PayloadOf<typeof EventsLinked>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(batches, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const b of fresh) touched.push(...(await this.projection.eventLinks(m, b.memberId, b.links)));
      return touched;
    });
  }

  @HandleEvents(UsageLinked, { group: 'reporting.links', concurrency: 6, reportLag: true })
  usageLinks(@Payload() batches: Array<PayloadOf<typeof UsageLinked>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(batches, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const b of fresh) touched.push(...(await this.projection.usageLinks(m, b.memberId, b.links)));
      return touched;
    });
  }

  @HandleEvents(UsageStored, { group: 'reporting.usage', concurrency: 6, reportLag: true })
  usage(@Payload() batches: Array<PayloadOf<typeof UsageStored>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(batches, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const b of fresh) touched.push(...(await this.projection.usage(m, b.memberId, b.workspaceId, b.usage)));
      return touched;
    });
  }

  @HandleEvents(MemberState, { group: 'reporting.members', concurrency: 6 })
  members(@Payload() members: Array<PayloadOf<typeof MemberState>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(members, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const member of fresh) touched.push(...(await this.projection.member(m, member)));
      return touched;
    });
  }

  @HandleEvents(PlateItemAssigned, { group: 'reporting.plate', concurrency: 6 })
  plate(@Payload() items: Array<PayloadOf<typeof PlateItemAssigned>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(items, ctx), async (m, fresh) => {
      for (const item of fresh) await this.projection.plate(m, item);
      return [];
    });
  }
}
