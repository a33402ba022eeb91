import { Injectable } from '@nestjs/common';
import { Histogram } from 'prom-client';
import type { EventsLinkedV1 } from '@worktrack/contracts';
import { Metrics } from '@worktrack/platform';
import { EventsRepository } from './events.repository';

/**
 * Makes correlation's links visible in the timeline (D-21, D-31): keeps, per
 * event, the newest link version, and measures the link delay — from the
 * event being stored to its first link being visible.
 */
@Injectable()
export class EventLinksService {
  private readonly delay: Histogram;

  constructor(
    private readonly events: EventsRepository,
    metrics: Metrics,
  ) {
    this.delay = new Histogram({
      name: 'worktrack_link_delay_seconds',
      help: 'From an event being stored to its first session link being visible in the timeline.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.5, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
  }

  async apply(message: EventsLinkedV1): Promise<void> {
    return this.applyMany([message]);
  }

  /**
   * Several EventsLinked messages (of one partition, in order) in one
   * statement: per event, only the newest version given counts, as
   * if they had been applied one after the other.
   */
  async applyMany(messages: EventsLinkedV1[]): Promise<void> {
    const newest = new Map<string, { memberId: string; eventId: string; sessionId: string | null; version: number }>();
    for (const { memberId, links } of messages) {
      for (const l of links) {
        const held = newest.get(l.eventId);
        if (!held || held.version < l.version)
          newest.set(l.eventId, { memberId, eventId: l.eventId, sessionId: l.sessionId ?? null, version: l.version });
      }
    }
    const applied = await this.events.applyLinks([...newest.values()]);
    const now = Date.now();
    for (const row of applied) if (row.link_version === 1) this.delay.observe((now - row.received_at.getTime()) / 1000);
  }
}
