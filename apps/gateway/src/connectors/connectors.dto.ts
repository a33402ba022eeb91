import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, Min, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import {
  CONNECTOR_KINDS,
  CONNECTOR_STATUSES,
  DELIVERY_STATES,
  MAX_POLL_INTERVAL_SECONDS,
  MIN_POLL_INTERVAL_SECONDS,
  type ConnectorKind,
  type ConnectorV1,
  type DeliveryV1,
  MaxCodePoints,
} from '@worktrack/contracts';
import { UUID_PATTERN } from '../openapi/validation-schemas';

export class CreateConnectorDto {
  @JSONSchema({ description: '`github` (webhooks), `slack` (Events API) or `calendar` (an ICS feed, polled).' })
  @IsIn(CONNECTOR_KINDS)
  kind!: ConnectorKind;

  @JSONSchema({ description: 'A label for you.', examples: ['Backend repository'] })
  @IsString()
  @MinLength(1)
  @MaxCodePoints(100)
  name!: string;

  @JSONSchema({ description: 'Whose activity this is. Default: you; another member of your workspace needs an owner or admin.' })
  @IsOptional()
  @IsUUID()
  member_id?: string;

  @JSONSchema({
    description:
      'The provider account whose activity belongs to the member: a GitHub login or a Slack user id (U…). Without it every delivery is theirs (github, slack only).',
    examples: ['octocat'],
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxCodePoints(100)
  account?: string;

  @JSONSchema({
    description: 'github: the webhook secret; slack: the app signing secret. Stored encrypted, never returned.',
    writeOnly: true,
  })
  @IsOptional()
  @IsString()
  @MinLength(8)
  @MaxCodePoints(256)
  secret?: string;

  @JSONSchema({
    description: 'calendar: the ICS feed address (https, http or webcal). Stored encrypted; shown only as scheme and host.',
    writeOnly: true,
  })
  @IsOptional()
  @IsString()
  @MaxCodePoints(2048)
  feed_url?: string;

  @JSONSchema({ description: `calendar: seconds between polls, ${MIN_POLL_INTERVAL_SECONDS}–${MAX_POLL_INTERVAL_SECONDS}; default 300.` })
  @IsOptional()
  @IsInt()
  @Min(MIN_POLL_INTERVAL_SECONDS)
  @Max(MAX_POLL_INTERVAL_SECONDS)
  poll_interval_seconds?: number;
}

export class ConnectorIdParam {
  @JSONSchema({ pattern: UUID_PATTERN, description: 'The connector id (a UUID).' })
  @IsUUID(undefined, { message: 'connector_id must be a UUID' })
  connector_id!: string;
}

export class DeliveriesQueryDto {
  @JSONSchema({ description: 'Page size, 1–100; default 50.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @JSONSchema({ description: '`meta.cursor` of the previous page.' })
  @IsOptional()
  @IsString()
  @MaxCodePoints(512)
  cursor?: string;
}

export class ConnectorBody {
  @ApiProperty({ format: 'uuid' }) connector_id!: string;
  @ApiProperty({ enum: CONNECTOR_KINDS }) kind!: string;
  @ApiProperty({ example: 'Backend repository' }) name!: string;
  @ApiProperty({ format: 'uuid', description: 'Whose activity the connector reports.' }) member_id!: string;
  @ApiProperty({ format: 'uuid' }) created_by!: string;
  @ApiProperty({ type: 'string', nullable: true }) account!: string | null;
  @ApiProperty({ enum: CONNECTOR_STATUSES, description: '`unhealthy` with `last_error` when its feed or credential fails.' })
  status!: string;
  @ApiProperty({ type: 'string', nullable: true }) last_error!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'Where the provider must POST its webhooks (github, slack).' })
  hook_path!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'The feed, reduced to scheme and host (calendar).' }) feed_url!:
    string | null;
  @ApiProperty({ type: 'integer', nullable: true }) poll_interval_seconds!: number | null;
  @ApiProperty({
    description:
      'The report_only API token the connector writes with; it is among the member’s tokens, and revoking it stops the connector.',
    example: 'q2xak3v7',
  })
  credential_token_id!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_delivery_at!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_polled_at!: string | null;
}

export class DeliveryBody {
  @ApiProperty({ format: 'uuid' }) delivery_id!: string;
  @ApiProperty({ description: 'X-GitHub-Delivery, the Slack event_id, or `poll:<time>`.', example: '72d3162e-cc78-11e3-81ab-4c9367dc0958' })
  provider_delivery_id!: string;
  @ApiProperty({ description: 'The provider event (`push`, `message`, `poll`, …).', example: 'push' }) provider_event!: string;
  @ApiProperty({ format: 'date-time' }) received_at!: string;
  @ApiProperty({ description: 'The signature was checked (refused deliveries are answered 401 and not logged).' }) verified!: boolean;
  @ApiProperty({ enum: DELIVERY_STATES }) state!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) events_mapped!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) events_accepted!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Already stored earlier (redeliveries, retries).' })
  events_deduplicated!: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why it was ignored or failed, or what a retry waits for.' }) detail!:
    string | null;
  @ApiProperty({ type: 'integer', minimum: 0 }) attempts!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: "Slack's X-Slack-Retry-Num." }) retry_num!: number | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) processed_at!: string | null;
}

export class WebhookAckBody {
  @ApiProperty({
    enum: ['accepted', 'ignored'],
    description: '`accepted`: logged, events follow asynchronously; `ignored`: logged, nothing to write.',
  })
  outcome!: string;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) delivery_id!: string | null;
}

export const presentConnector = (c: ConnectorV1): ConnectorBody => ({
  connector_id: c.connectorId,
  kind: c.kind,
  name: c.name,
  member_id: c.memberId,
  created_by: c.createdBy,
  account: c.account ?? null,
  status: c.status,
  last_error: c.lastError ?? null,
  hook_path: c.hookPath ?? null,
  feed_url: c.feedUrl ?? null,
  poll_interval_seconds: c.pollIntervalSeconds ?? null,
  credential_token_id: c.credentialTokenId,
  created_at: c.createdAt,
  last_delivery_at: c.lastDeliveryAt ?? null,
  last_polled_at: c.lastPolledAt ?? null,
});

export const presentDelivery = (d: DeliveryV1): DeliveryBody => ({
  delivery_id: d.deliveryId,
  provider_delivery_id: d.providerDeliveryId,
  provider_event: d.providerEvent,
  received_at: d.receivedAt,
  verified: d.verified,
  state: d.state,
  events_mapped: d.eventsMapped,
  events_accepted: d.eventsAccepted,
  events_deduplicated: d.eventsDeduplicated,
  detail: d.detail ?? null,
  attempts: d.attempts,
  retry_num: d.retryNum ?? null,
  processed_at: d.processedAt ?? null,
});
