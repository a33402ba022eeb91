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

/** The workspaces the payloads name (each raises its summary revision). */
const workspacesOf = <T extends { workspaceId: string }>(fresh: T[]): string[] => fresh.map((p) => p.workspaceId);

/** The payloads of a call with their positions (one partition, offset order). */
const positioned = <T>(payloads: T[], ctx: ContractContext): Array<Positioned<T>> =>
  ctx.metas.map((meta, i) => ({ topic: meta.topic, partition: meta.partition, offset: meta.offset, payload: payloads[i] }));

/**
 * Applies each topic's messages to the projection (ADR 0018): one
 * partition's messages, the touched buckets and the consumed position in
 * one transaction, under the advisory locks of the messages' members (taken
 * before any write, so concurrent calls never deadlock).
 */
@Injectable()
export class ProjectionService {
  constructor(private readonly projection: ProjectionRepository) {}

  sessions(changes: Array<PayloadOf<typeof SessionChanged>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(
      positioned(changes, ctx),
      (m, fresh) => this.projection.sessions(m, fresh),
      (c) => c.memberId,
      workspacesOf,
    );
  }

  events(batches: Array<PayloadOf<typeof EventsStored>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(
      positioned(batches, ctx),
      (m, fresh, consumed) =>
        this.projection.events(
          m,
          fresh.map((b) => ({ memberId: b.memberId, workspaceId: b.workspaceId, items: b.events })),
          consumed,
        ),
      (b) => b.memberId,
    );
  }

  eventLinks(batches: Array<PayloadOf<typeof EventsLinked>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(
      positioned(batches, ctx),
      (m, fresh, consumed) => this.projection.eventLinks(m, fresh, consumed),
      (b) => b.memberId,
    );
  }

  usageLinks(batches: Array<PayloadOf<typeof UsageLinked>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(
      positioned(batches, ctx),
      (m, fresh, consumed) => this.projection.usageLinks(m, fresh, consumed),
      (b) => b.memberId,
    );
  }

  usage(batches: Array<PayloadOf<typeof UsageStored>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(
      positioned(batches, ctx),
      (m, fresh, consumed) =>
        this.projection.usage(
          m,
          fresh.map((b) => ({ memberId: b.memberId, workspaceId: b.workspaceId, items: b.usage })),
          consumed,
        ),
      (b) => b.memberId,
    );
  }

  members(members: Array<PayloadOf<typeof MemberState>>, ctx: ContractContext): Promise<void> {
    return this.projection.consume(
      positioned(members, ctx),
      async (m, fresh) => {
        const touched: Touched[] = [];
        for (const member of fresh) touched.push(...(await this.projection.member(m, member)));
        return touched;
      },
      (member) => member.memberId,
      workspacesOf,
    );
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
