import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  EventsLinked,
  EventsStored,
  MemberState,
  PlateItemAssigned,
  PlateItemCompleted,
  SessionChanged,
  UsageLinked,
  UsageStored,
  type PayloadOf,
} from '@worktrack/contracts';
import { HandleEvents, type ContractContext } from '@worktrack/platform';
import { ProjectionService } from './projection.service';

/**
 * The reporting projection (ADR 0018): fed only by topics — session
 * changes, events stored and linked, usage stored and linked, members, plate
 * items assigned and completed.
 */
@Controller()
export class ProjectionConsumer {
  constructor(private readonly projection: ProjectionService) {}

  @HandleEvents(SessionChanged, { group: 'reporting.sessions', concurrency: 6, reportLag: true })
  sessions(@Payload() changes: Array<PayloadOf<typeof SessionChanged>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.sessions(changes, ctx);
  }

  @HandleEvents(EventsStored, { group: 'reporting.events', concurrency: 6, reportLag: true })
  events(@Payload() batches: Array<PayloadOf<typeof EventsStored>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.events(batches, ctx);
  }

  @HandleEvents(EventsLinked, { group: 'reporting.links', concurrency: 6, reportLag: true })
  eventLinks(@Payload() batches: Array<PayloadOf<typeof EventsLinked>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.eventLinks(batches, ctx);
  }

  @HandleEvents(UsageLinked, { group: 'reporting.links', concurrency: 6, reportLag: true })
  usageLinks(@Payload() batches: Array<PayloadOf<typeof UsageLinked>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.usageLinks(batches, ctx);
  }

  @HandleEvents(UsageStored, { group: 'reporting.usage', concurrency: 6, reportLag: true })
  usage(@Payload() batches: Array<PayloadOf<typeof UsageStored>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.usage(batches, ctx);
  }

  @HandleEvents(MemberState, { group: 'reporting.members', concurrency: 6 })
  members(@Payload() members: Array<PayloadOf<typeof MemberState>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.members(members, ctx);
  }

  @HandleEvents(PlateItemAssigned, { group: 'reporting.plate', concurrency: 6 })
  plate(@Payload() items: Array<PayloadOf<typeof PlateItemAssigned>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.plate(items, ctx);
  }

  @HandleEvents(PlateItemCompleted, { group: 'reporting.plate', concurrency: 6 })
  plateCompleted(@Payload() items: Array<PayloadOf<typeof PlateItemCompleted>>, @Ctx() ctx: ContractContext): Promise<void> {
    return this.projection.plateCompleted(items, ctx);
  }
}
