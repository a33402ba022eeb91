import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  activityEventRuleViolations,
  ErrorCode,
  GetMe,
  IngestEvents,
  MAX_EVENTS_PER_BATCH,
  parseApiToken,
  VerifyToken,
  type ActorV1,
  type IngestResultV1,
} from '@worktrack/contracts';
import { CommandClient, DomainError } from '@worktrack/platform';
import type { ConnectorEntity } from '../store/entities/connector.entity';
import type { MappedEvent } from '../mapping/mapped-event';
import { redactSecrets } from '../mapping/redact';
import { SecretBox } from '@worktrack/platform';

/** How long a verified credential is reused; a revoked token stops a connector within this (D-10 allows 5 s at the edge). */
const ACTOR_TTL_MS = 5_000;
/** How long a member's time zone is reused before identity is asked again. */
const ZONE_TTL_MS = 300_000;

/**
 * Writes mapped events exactly as POST /activity/events does (D-36): the same
 * rules (D-18, D-19), the same IngestEvents command to ingestion (validation,
 * deduplication by external_id D-15, correlation), acting as the connected
 * member through the connector's report_only API token (D-9), verified by
 * identity like any client's token.
 */
@Injectable()
export class EventWriter {
  private readonly actors = new Map<string, { actor: ActorV1; until: number }>();
  private readonly zones = new Map<string, { zone: string; until: number }>();

  constructor(
    private readonly commands: CommandClient,
    private readonly box: SecretBox,
  ) {}

  async write(connector: ConnectorEntity, events: MappedEvent[], requestId: string): Promise<IngestResultV1> {
    const actor = await this.actorOf(connector);
    const receivedAt = new Date();
    const clean = events.map((e) => ({ ...e, payload: redactSecrets(e.payload).payload }));
    const violations = activityEventRuleViolations(clean, receivedAt);
    if (violations.length > 0) {
      throw new DomainError(
        ErrorCode.VALIDATION_FAILED,
        'Mapped events break the ActivityEvent rules.',
        violations.map((v) => ({ path: `events[${v.index}].${v.field}`, issue: v.issue })),
      );
    }
    const total: IngestResultV1 = { accepted: 0, deduplicated: 0, eventIds: [] };
    for (let i = 0; i < clean.length; i += MAX_EVENTS_PER_BATCH) {
      const chunk = clean.slice(i, i + MAX_EVENTS_PER_BATCH);
      const result = await this.commands.send(
        IngestEvents,
        {
          actor,
          receivedAt: receivedAt.toISOString(),
          events: chunk.map((e) => ({
            sourceType: e.sourceType,
            eventType: e.eventType,
            occurredAt: e.occurredAt,
            payload: e.payload,
            externalId: e.externalId,
          })),
        },
        { key: actor.memberId, requestId },
      );
      total.accepted += result.accepted;
      total.deduplicated += result.deduplicated;
      total.eventIds.push(...result.eventIds);
    }
    return total;
  }

  /** The connector's credential as identity verifies it: UNAUTHENTICATED once revoked. */
  private async actorOf(connector: ConnectorEntity): Promise<ActorV1> {
    const cached = this.actors.get(connector.id);
    if (cached && cached.until > Date.now()) return cached.actor;
    const parsed = parseApiToken(this.box.open(connector.credentialBox));
    if (!parsed) throw new Error(`connector ${connector.id} holds a malformed credential`);
    const { actor } = await this.commands.send(
      VerifyToken,
      { tokenId: parsed.tokenId, secretSha256: createHash('sha256').update(parsed.secret).digest('hex') },
      { key: parsed.tokenId },
    );
    this.actors.set(connector.id, { actor, until: Date.now() + ACTOR_TTL_MS });
    return actor;
  }

  /**
   * The IANA time zone of the member the connector acts as (all-day
   * and floating calendar times are read in it), from identity's own record
   * of the member (GetMe, D-13) asked as the connector's credential.
   */
  async memberTimezone(connector: ConnectorEntity): Promise<string> {
    const cached = this.zones.get(connector.id);
    if (cached && cached.until > Date.now()) return cached.zone;
    const actor = await this.actorOf(connector);
    const member = await this.commands.send(GetMe, { actor }, { key: actor.memberId });
    this.zones.set(connector.id, { zone: member.timezone, until: Date.now() + ZONE_TTL_MS });
    return member.timezone;
  }

  forget(connectorId: string): void {
    this.actors.delete(connectorId);
    this.zones.delete(connectorId);
  }
}
