import { Injectable } from '@nestjs/common';
import type {
  EventsLinked,
  EventsStored,
  MemberState,
  PlateItemAssigned,
  PlateItemCompleted,
  SessionChanged,
  UsageLinked,
  UsageStored,
  PayloadOf,
} from '@worktrack/contracts';
import type { ContractContext } from '@worktrack/platform';
import { ProjectionRepository, type Positioned, type Touched } from './projection.repository';

/** The payloads of a call with their positions (one partition, offset order). */
const positioned = <T>(payloads: T[], ctx: ContractContext): Array<Positioned<T>> =>
  ctx.metas.map((meta, i) => ({ topic: meta.topic, partition: meta.partition, offset: meta.offset, payload: payloads[i] }));

/**
 * Applies each topic's messages to the projection (ADR 0018): one
 * partition's messages, the touched buckets and the consumed position in
 * one transaction.
 */
@Injectable()
export class ProjectionService {
  constructor(private readonly projection: ProjectionRepository) {}

  sessions(changes: Array<PayloadOf<typeof SessionChanged>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(changes, ctx), (m, fresh) => this.projection.sessions(m, fresh));
  }

  events(batches: Array<PayloadOf<typeof EventsStored>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(batches, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const b of fresh) touched.push(...(await this.projection.events(m, b.memberId, b.workspaceId, b.events)));
      return touched;
    });
  }

  eventLinks(batches: Array<PayloadOf<typeof EventsLinked>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(batches, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const b of fresh) touched.push(...(await this.projection.eventLinks(m, b.memberId, b.links)));
      return touched;
    });
  }

  usageLinks(batches: Array<PayloadOf<typeof UsageLinked>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(batches, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const b of fresh) touched.push(...(await this.projection.usageLinks(m, b.memberId, b.links)));
      return touched;
    });
  }

  usage(batches: Array<PayloadOf<typeof UsageStored>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(batches, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const b of fresh) touched.push(...(await this.projection.usage(m, b.memberId, b.workspaceId, b.usage)));
      return touched;
    });
  }

  members(members: Array<PayloadOf<typeof MemberState>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(members, ctx), async (m, fresh) => {
      const touched: Touched[] = [];
      for (const member of fresh) touched.push(...(await this.projection.member(m, member)));
      return touched;
    });
  }

  plate(items: Array<PayloadOf<typeof PlateItemAssigned>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(items, ctx), async (m, fresh) => {
      for (const item of fresh) await this.projection.plate(m, item);
      return [];
    });
  }

  plateCompleted(items: Array<PayloadOf<typeof PlateItemCompleted>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(positioned(items, ctx), async (m, fresh) => {
      for (const item of fresh) await this.projection.plateCompleted(m, item);
      return [];
    });
  }
}
