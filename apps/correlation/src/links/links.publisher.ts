import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventsLinked, type EventsLinkedV1 } from '@worktrack/contracts';
import { enqueueMany } from '@worktrack/platform';
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
