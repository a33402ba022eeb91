import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventLinkV1, EventsLinked, UsageLinked, UsageLinkV1, type EventsLinkedV1 } from '@worktrack/contracts';
import { enqueueMany, jsonArraySql, outboxInsertSql } from '@worktrack/platform';
import type { ChangedLink } from './links.repository';

/** About 110 bytes a link as JSON: 2,000 links are ~220 KB a message. */
export const LINKS_PER_MESSAGE = 2_000;

/**
 * Links that changed, on `correlation.links`, written to the outbox in the
 * transaction that changed them, keyed by member id.
 */
@Injectable()
export class LinksPublisher {
  /**
   * One message per LINKS_PER_MESSAGE changed links (same key, so in order): a
   * session change can relink any number of events, and one message must stay
   * far below the topic's record limit, or its outbox row would block the relay
   * for every member.
   */
  async changed(manager: EntityManager, memberId: string, changed: ChangedLink[]): Promise<void> {
    if (changed.length === 0) return;
    const messages: Array<{ payload: EventsLinkedV1; opts: { key: string } }> = [];
    for (let i = 0; i < changed.length; i += LINKS_PER_MESSAGE) {
      messages.push({
        payload: {
          memberId,
          links: changed
            .slice(i, i + LINKS_PER_MESSAGE)
            .map((c) => ({ eventId: c.event_id, sessionId: c.session_id, version: c.link_version })),
        },
        opts: { key: memberId },
      });
    }
    await enqueueMany(manager, EventsLinked, messages);
  }
}

/**
 * The EventsLinked rows correlation's PL/pgSQL functions write (ADR 0012
 * decisions 16 and 20, migration 1764020000000), built from the contract:
 * one row per group of `from`, whose rows `l` hold `event_id`, `session_id`
 * and `link_version`, keyed and addressed by `memberId` (an SQL expression),
 * the links in event id order; message ids are generated, the request id is
 * the function's `p_request_id`, the `traceparent` the SQL expression
 * `traceparent` (NULL when omitted, as the functions before migration
 * 1767000000005 wrote it).
 */
export function linksInsertSql(schema: string, memberId: string, from: string, traceparent?: string): string {
  return outboxInsertSql(EventsLinked, {
    schema,
    key: memberId,
    messageId: 'gen_random_uuid()',
    requestId: 'p_request_id',
    traceparent,
    payload: {
      memberId,
      links: jsonArraySql(EventLinkV1, { eventId: 'l.event_id', sessionId: 'l.session_id', version: 'l.link_version' }, 'l.event_id'),
    },
    from,
  });
}

/**
 * The UsageLinked rows (D-48) correlation's PL/pgSQL functions write
 * (migration 1764200000001), built from the contract as `linksInsertSql`
 * builds EventsLinked's: one row per group of `from`, whose rows `l` hold a
 * usage record's id as `event_id`, `session_id` and `link_version`, keyed and
 * addressed by `memberId`, the links in record id order, the `traceparent`
 * as `linksInsertSql` takes it.
 */
export function usageLinksInsertSql(schema: string, memberId: string, from: string, traceparent?: string): string {
  return outboxInsertSql(UsageLinked, {
    schema,
    key: memberId,
    messageId: 'gen_random_uuid()',
    requestId: 'p_request_id',
    traceparent,
    payload: {
      memberId,
      links: jsonArraySql(UsageLinkV1, { usageId: 'l.event_id', sessionId: 'l.session_id', version: 'l.link_version' }, 'l.event_id'),
    },
    from,
  });
}
