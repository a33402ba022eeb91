import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { StoredUsageRefV1, UsageStored, type ActorV1 } from '@worktrack/contracts';
import {
  checkedOutboxPayload,
  currentRequestId,
  currentTraceparent,
  jsonArrayParamSql,
  outboxInsertSql,
  type QueuedMessage,
} from '@worktrack/platform';

/** What `toISOString` gives for years 0000–9999: always a valid strict ISO 8601 instant. */
const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * What the insert statement offers the UsageStored row: SQL expressions of
 * the member and workspace ids and of the parameter that carries `refsJson`
 * (jsonb), and `fresh`, the rows it inserted (column `id`).
 */
export interface StoredUsageRefs {
  memberId: string;
  workspaceId: string;
  refs: string;
}

/** A queued UsageStored, with the JSON text of the batch's refs (one per row offered to the insert, in order) for its parameter. */
export type QueuedUsageStored = QueuedMessage<StoredUsageRefs> & { refsJson: string };

/**
 * Newly stored usage records on `ingestion.usage` (D-48), for correlation,
 * keyed by member id: queued by the statement that stores them
 * (`UsageRepository.insertBatchQueued`, one statement), so published if and
 * only if it commits.
 */
@Injectable()
export class UsagePublisher {
  /**
   * The UsageStored message for a batch; the statement names the new rows
   * only, which it learns as it inserts. `refs` are the batch's rows as the
   * message lists them, one per row offered to the insert and in its order:
   * their JSON text travels as one parameter, and the statement keeps the
   * refs of the rows it inserted (all of them, unless some were stored
   * before). Ids are UUIDs of ours, instants toISOString's, counts, costs and
   * sources checked by the command's rules: the contract holds by
   * construction, and a batch (at most MAX_USAGE_PER_BATCH records) stays far
   * below the topic's limit, unless an instant left the four-digit years;
   * then the contract check runs here over every record, a superset of what
   * the statement writes.
   */
  stored(actor: Pick<ActorV1, 'memberId' | 'workspaceId'>, refs: StoredUsageRefV1[]): QueuedUsageStored {
    if (!refs.every((r) => CANONICAL_INSTANT.test(r.occurredAt))) {
      checkedOutboxPayload(UsageStored, { memberId: actor.memberId, workspaceId: actor.workspaceId, usage: refs });
    }
    return {
      messageId: randomUUID(),
      requestId: currentRequestId() ?? null,
      traceparent: currentTraceparent() ?? null,
      insertSql: storedSql,
      refsJson: JSON.stringify(refs),
    };
  }
}

/**
 * One UsageStored row, keyed by the member, listing the refs of the rows of
 * `fresh` in the batch's order; none when `fresh` is empty. The refs come
 * built (the parameter), not from `fresh`'s columns: building 100 objects of
 * 14 fields in SQL (every value converted to jsonb) cost the database more
 * than the rest of the statement (docs/benchmarks.md, bench:usage).
 */
const storedSql: QueuedMessage<StoredUsageRefs>['insertSql'] = (at) =>
  outboxInsertSql(UsageStored, {
    schema: at.schema,
    key: at.memberId,
    messageId: at.messageId,
    requestId: at.requestId,
    traceparent: at.traceparent,
    payload: {
      memberId: at.memberId,
      workspaceId: at.workspaceId,
      usage: jsonArrayParamSql(StoredUsageRefV1, {
        param: at.refs,
        id: 'usageId',
        idType: 'uuid',
        written: 'count(*)',
        rows: 'SELECT id FROM fresh',
      }),
    },
    from: 'FROM fresh f HAVING count(*) > 0',
  });
