import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SessionChanged, type SessionChange } from '@worktrack/contracts';
import { currentRequestId, currentTraceparent, enqueue, isoInstantSql, outboxInsertSql, type QueuedMessage } from '@worktrack/platform';
import type { SessionEntity } from './entities/session.entity';

/**
 * What a change's statement offers its SessionChanged row: `from`, the CTE
 * holding the changed row (its columns as the sessions table's), and
 * `change`, an SQL expression of the change's name.
 */
export interface ChangedRefs {
  from: string;
  change: string;
}

/**
 * Session changes on `sessions.events`, written to the outbox in the
 * transaction of the change (no loss between commit and publish), keyed by
 * member id (one member's changes in order). The commit's NOTIFY wakes the
 * relay, which gathers the commits of 50 ms into one batch.
 */
@Injectable()
export class SessionsPublisher {
  /**
   * A SessionChanged message for a statement that makes the change and
   * queues its message from the changed row, in one round trip (ADR 0012
   * decision 13): the payload `changed` builds, from the row itself (ids are
   * uuids, instants of millisecond precision written as `toISOString` does,
   * so the contract holds by construction).
   */
  queued(): QueuedMessage<ChangedRefs> {
    return {
      messageId: randomUUID(),
      requestId: currentRequestId() ?? null,
      traceparent: currentTraceparent() ?? null,
      insertSql: changedSql,
    };
  }

  changed(manager: EntityManager, change: SessionChange, s: SessionEntity): Promise<void> {
    return enqueue(
      manager,
      SessionChanged,
      {
        change,
        sessionId: s.id,
        memberId: s.memberId,
        workspaceId: s.workspaceId,
        source: s.source,
        state: s.state,
        startedAt: s.startedAt.toISOString(),
        closedAt: s.closedAt ? s.closedAt.toISOString() : null,
        closedReason: s.closedReason,
        revision: s.revision,
        changedAt: s.updatedAt.toISOString(),
        workType: s.workType,
        projectId: s.projectId,
        goalId: s.goalId,
        intentText: s.intentText,
        userTags: s.userTags,
        createdAt: s.createdAt.toISOString(),
      },
      { key: s.memberId },
    );
  }
}

/** One SessionChanged row per row of `from`, keyed by its member. */
const changedSql: QueuedMessage<ChangedRefs>['insertSql'] = (at) =>
  outboxInsertSql(SessionChanged, {
    schema: at.schema,
    key: 'c.member_id::text',
    messageId: at.messageId,
    requestId: at.requestId,
    traceparent: at.traceparent,
    payload: {
      change: at.change,
      sessionId: 'c.id',
      memberId: 'c.member_id',
      workspaceId: 'c.workspace_id',
      source: 'c.source',
      state: 'c.state',
      startedAt: isoInstantSql('c.started_at'),
      closedAt: isoInstantSql('c.closed_at'),
      closedReason: 'c.closed_reason',
      revision: 'c.revision',
      changedAt: isoInstantSql('c.updated_at'),
      workType: 'c.work_type',
      projectId: 'c.project_id',
      goalId: 'c.goal_id',
      intentText: 'c.intent_text',
      userTags: 'to_jsonb(c.user_tags)',
      createdAt: isoInstantSql('c.created_at'),
    },
    from: `FROM ${at.from} c`,
  });
