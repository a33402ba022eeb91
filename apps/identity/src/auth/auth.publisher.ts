import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { BrowserSessionEnded, type BrowserSessionEndedV1 } from '@worktrack/contracts';
import { enqueue } from '@worktrack/platform';

/** Ended browser sessions on `identity.events` (gateway replicas refuse their JWTs), through the outbox in the ending transaction. */
@Injectable()
export class AuthPublisher {
  ended(manager: EntityManager, event: BrowserSessionEndedV1): Promise<void> {
    return enqueue(manager, BrowserSessionEnded, event, { key: event.memberId });
  }
}
