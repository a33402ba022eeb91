import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { StoredUsageRefV1, UsageStored, type ActorV1 } from '@worktrack/contracts';
import { checkedOutboxPayload, currentRequestId, jsonArraySql, outboxInsertSql, type QueuedMessage } from '@worktrack/platform';

/** What `toISOString` gives for years 0000–9999: always a valid strict ISO 8601 instant. */
const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * What the insert statement offers the UsageStored row: SQL expressions of
 * the member and workspace ids, and `fresh`, the rows it inserted, with the
 * columns of `UsageRepository.insertBatchQueued`'s input and `n`, the
 * position in the batch.
 */
export interface StoredUsageRefs {
  memberId: string;
  workspaceId: string;
}

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
   * only, which it learns as it inserts. Ids are UUIDs of ours, instants
   * toISOString's, counts, costs and sources checked by the command's rules:
   * the contract holds by construction, and a batch (at most
   * MAX_USAGE_PER_BATCH records) stays far below the topic's limit, unless an
   * instant left the four-digit years; then the contract check runs here over
   * every record, a superset of what the statement writes.
   */
  stored(actor: Pick<ActorV1, 'memberId' | 'workspaceId'>, refs: StoredUsageRefV1[]): QueuedMessage<StoredUsageRefs> {
    if (!refs.every((r) => CANONICAL_INSTANT.test(r.occurredAt))) {
      checkedOutboxPayload(UsageStored, { memberId: actor.memberId, workspaceId: actor.workspaceId, usage: refs });
    }
    return { messageId: randomUUID(), requestId: currentRequestId() ?? null, insertSql: storedSql };
  }
}

/** One UsageStored row, keyed by the member, listing the rows of `fresh` in the batch's order; none when `fresh` is empty. */
const storedSql: QueuedMessage<StoredUsageRefs>['insertSql'] = (at) =>
  outboxInsertSql(UsageStored, {
    schema: at.schema,
    key: at.memberId,
    messageId: at.messageId,
    requestId: at.requestId,
    payload: {
      memberId: at.memberId,
      workspaceId: at.workspaceId,
      usage: jsonArraySql(
        StoredUsageRefV1,
        {
          usageId: 'f.id',
          occurredAt: 'f.oc',
          provider: 'f.pr',
          model: 'f.mo',
          operation: 'f.op',
          inputTokens: 'f.it',
          outputTokens: 'f.ot',
          cacheReadInputTokens: 'f.cr',
          cacheCreationInputTokens: 'f.cc',
          reasoningOutputTokens: 'f.ro',
          cost: 'f.co',
          currency: `CASE WHEN f.co IS NULL THEN NULL ELSE 'USD' END`,
          costSource: 'f.cs',
          sessionId: 'f.si',
        },
        'f.n',
      ),
    },
    from: 'FROM fresh f HAVING count(*) > 0',
  });
