import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { queryRows, SchemaRepository } from '@worktrack/platform';
import { ConnectorEntity, type KnownInstance } from './entities/connector.entity';

/** Connector configurations: members' lookups, health, and the calendar polling queue. */
@Injectable()
export class ConnectorsRepository extends SchemaRepository {
  constructor(dataSource: DataSource) {
    super(dataSource);
  }

  async insert(connector: Omit<ConnectorEntity, 'createdAt'>): Promise<ConnectorEntity> {
    await this.dataSource.manager.insert(ConnectorEntity, connector);
    return this.dataSource.manager.findOneByOrFail(ConnectorEntity, { id: connector.id });
  }

  /** A live connector by id (deleted ones are gone for every caller). */
  findLive(id: string): Promise<ConnectorEntity | null> {
    return this.dataSource.manager.findOneBy(ConnectorEntity, { id, deletedAt: IsNull() });
  }

  findAny(id: string): Promise<ConnectorEntity | null> {
    return this.dataSource.manager.findOneBy(ConnectorEntity, { id });
  }

  /**
   * A page of the connectors acting for `memberId` or created by them, in their
   * workspace, oldest first, after `after` (keyset on the creation time at
   * millisecond precision, as the cursor carries it, then id).
   */
  listFor(workspaceId: string, memberId: string, limit: number, after?: { createdAt: string; id: string }): Promise<ConnectorEntity[]> {
    const q = this.dataSource.manager
      .createQueryBuilder(ConnectorEntity, 'c')
      .where('c.workspace_id = :workspaceId AND c.deleted_at IS NULL AND (c.member_id = :memberId OR c.created_by = :memberId)', {
        workspaceId,
        memberId,
      })
      .orderBy("date_trunc('milliseconds', c.created_at)", 'ASC')
      .addOrderBy('c.id', 'ASC')
      .limit(limit);
    if (after) q.andWhere("(date_trunc('milliseconds', c.created_at), c.id) > (:createdAt::timestamptz, :id)", after);
    return q.getMany();
  }

  async markDeleted(id: string, at: Date): Promise<void> {
    await this.dataSource.manager.update(ConnectorEntity, { id }, { deletedAt: at, nextPollAt: null });
  }

  async touchDelivery(id: string, at: Date, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.update(ConnectorEntity, { id }, { lastDeliveryAt: at });
  }

  async setHealth(id: string, error: string | null, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.update(ConnectorEntity, { id }, { status: error === null ? 'active' : 'unhealthy', lastError: error });
  }

  /**
   * Claims calendar connectors whose poll is due, for `leaseMs`. The lease
   * (not a held transaction) marks the claim, so a replica that dies mid-poll
   * only delays that feed until the lease ends.
   */
  claimDuePolls(limit: number, leaseMs: number): Promise<Array<{ id: string }>> {
    return queryRows<{ id: string }>(
      this.dataSource.manager,
      `UPDATE "${this.schema}"."connectors" c SET poll_lease_until = now() + ($2 * interval '1 millisecond')
        WHERE c.id IN (
          SELECT id FROM "${this.schema}"."connectors"
           WHERE kind = 'calendar' AND deleted_at IS NULL AND next_poll_at <= now()
             AND (poll_lease_until IS NULL OR poll_lease_until < now())
           ORDER BY next_poll_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING c.id`,
      [limit, leaseMs],
    );
  }

  /** Records a poll: the new state (only after a good feed), health, and when to poll next; releases the lease. */
  async finishPoll(
    manager: EntityManager,
    id: string,
    outcome: { polledAt: Date; nextPollAt: Date; error: string | null; state?: KnownInstance[] },
  ): Promise<void> {
    await manager.update(
      ConnectorEntity,
      { id },
      {
        lastPolledAt: outcome.polledAt,
        nextPollAt: outcome.nextPollAt,
        pollLeaseUntil: null,
        status: outcome.error === null ? 'active' : 'unhealthy',
        lastError: outcome.error,
        ...(outcome.state ? { calendarState: outcome.state } : {}),
      },
    );
  }
}
