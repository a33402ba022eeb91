import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { ActorV1 } from '../identity/member';
import { TOKEN_ID_PATTERN } from '../identity/api-token-format';
import { MaxCodePoints } from '../input-safety';
import { defineCommand } from '../message';
import { MAX_PAGE_SIZE } from '../pagination';

/** D-36: the built-in connectors. */
export const CONNECTOR_KINDS = ['github', 'slack', 'calendar'] as const;
export type ConnectorKind = (typeof CONNECTOR_KINDS)[number];
/** Providers that push webhooks to `/hooks/<provider>/<connector_id>`. */
export const WEBHOOK_PROVIDERS = ['github', 'slack'] as const;
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number];
export const CONNECTOR_STATUSES = ['active', 'unhealthy'] as const;
export type ConnectorStatus = (typeof CONNECTOR_STATUSES)[number];

export const MIN_POLL_INTERVAL_SECONDS = 60;
export const MAX_POLL_INTERVAL_SECONDS = 86_400;
export const DEFAULT_POLL_INTERVAL_SECONDS = 300;
/**
 * Webhook bodies the gateway forwards as received (the provider's signature
 * is checked again by the connectors service). Larger verified deliveries —
 * GitHub sends up to 25 MB — are forwarded reduced, with an edge attestation
 * (ADR 0011), at most MAX_REDUCED_WEBHOOK_BODY_BYTES.
 */
export const MAX_WEBHOOK_BODY_BYTES = 1_048_576;
export const MAX_REDUCED_WEBHOOK_BODY_BYTES = 2 * 1_048_576;

/**
 * POST /v1/connectors. `secret` is the webhook secret (github) or the signing
 * secret (slack); `feedUrl` the calendar's ICS address. Both are stored
 * encrypted and never returned. `memberId` defaults to the caller; another
 * member of the workspace needs an owner or admin caller.
 */
export class CreateConnectorV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsIn(CONNECTOR_KINDS) kind!: ConnectorKind;
  @IsString() @MinLength(1) @MaxCodePoints(100) name!: string;
  @IsOptional() @IsUUID() memberId?: string;
  /** The provider account whose activity is the member's (GitHub login, Slack user id); null = all. */
  @IsOptional() @IsString() @MinLength(1) @MaxCodePoints(100) account?: string;
  @IsOptional() @IsString() @MinLength(8) @MaxCodePoints(256) secret?: string;
  @IsOptional() @IsString() @MaxCodePoints(2048) feedUrl?: string;
  @IsOptional() @IsInt() @Min(MIN_POLL_INTERVAL_SECONDS) @Max(MAX_POLL_INTERVAL_SECONDS) pollIntervalSeconds?: number;
}

/** A connector as shown to members: never a secret, a feed URL only redacted. */
export class ConnectorV1 {
  @IsUUID() connectorId!: string;
  @IsIn(CONNECTOR_KINDS) kind!: ConnectorKind;
  @IsString() name!: string;
  @IsUUID() memberId!: string;
  @IsUUID() createdBy!: string;
  @IsOptional() @IsString() account!: string | null;
  @IsIn(CONNECTOR_STATUSES) status!: ConnectorStatus;
  @IsOptional() @IsString() lastError!: string | null;
  /** Where the provider must send webhooks (path on the gateway), for github and slack. */
  @IsOptional() @IsString() hookPath!: string | null;
  /** Scheme and host only, e.g. `https://calendar.example.com/…`. */
  @IsOptional() @IsString() feedUrl!: string | null;
  @IsOptional() @IsInt() pollIntervalSeconds!: number | null;
  /** The report_only API token the connector writes with (D-9); revoking it stops the connector. */
  @Matches(TOKEN_ID_PATTERN) credentialTokenId!: string;
  @IsString() createdAt!: string;
  @IsOptional() @IsString() lastDeliveryAt!: string | null;
  @IsOptional() @IsString() lastPolledAt!: string | null;
}
export const CreateConnector = defineCommand({
  type: 'connectors.connector.create',
  version: 1,
  topic: 'connectorsCommands',
  payload: CreateConnectorV1,
  result: ConnectorV1,
});

export class ConnectorListV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => ConnectorV1) connectors!: ConnectorV1[];
  @IsOptional() @IsString() nextCursor?: string | null;
}
export class ListConnectorsV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  /** Page size (default DEFAULT_PAGE_SIZE); optional so requesters of before pagination keep working. */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_PAGE_SIZE) limit?: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
/** The caller's connectors: those acting for the caller and those the caller created. */
export const ListConnectors = defineCommand({
  type: 'connectors.connector.list',
  version: 1,
  topic: 'connectorsCommands',
  payload: ListConnectorsV1,
  result: ConnectorListV1,
});

export class ConnectorRefV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() connectorId!: string;
}
/** Deletes a connector and revokes its credential; its hook answers 404 from then on. */
export const DeleteConnector = defineCommand({
  type: 'connectors.connector.delete',
  version: 1,
  topic: 'connectorsCommands',
  payload: ConnectorRefV1,
  result: ConnectorV1,
});

export const DELIVERY_STATES = ['pending', 'ingested', 'ignored', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One entry of a connector's delivery log: a webhook delivery or a calendar poll that changed something. */
export class DeliveryV1 {
  @IsUUID() deliveryId!: string;
  /** X-GitHub-Delivery, the Slack event_id, or `poll:<time>` for a calendar poll. */
  @IsString() providerDeliveryId!: string;
  /** The provider's event name (`push`, `message`, `poll`). */
  @IsString() providerEvent!: string;
  @IsString() receivedAt!: string;
  @IsBoolean() verified!: boolean;
  @IsIn(DELIVERY_STATES) state!: DeliveryState;
  @IsInt() @Min(0) eventsMapped!: number;
  @IsInt() @Min(0) eventsAccepted!: number;
  @IsInt() @Min(0) eventsDeduplicated!: number;
  /** Why a delivery was ignored or failed. */
  @IsOptional() @IsString() detail!: string | null;
  @IsInt() @Min(0) attempts!: number;
  /** Slack's X-Slack-Retry-Num. */
  @IsOptional() @IsInt() retryNum!: number | null;
  @IsOptional() @IsString() processedAt!: string | null;
}
export class ListDeliveriesV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() connectorId!: string;
  @IsInt() @Min(1) @Max(100) limit!: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
export class DeliveryPageV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => DeliveryV1) deliveries!: DeliveryV1[];
  @IsOptional() @IsString() nextCursor!: string | null;
}
/** The delivery log, newest first. */
export const ListDeliveries = defineCommand({
  type: 'connectors.delivery.list',
  version: 1,
  topic: 'connectorsCommands',
  payload: ListDeliveriesV1,
  result: DeliveryPageV1,
});

/** The headers a provider's signature and dedup need, as the gateway received them. */
export class WebhookHeadersV1 {
  @IsOptional() @IsString() @MaxLength(200) contentType?: string;
  @IsOptional() @IsString() @MaxLength(100) githubEvent?: string;
  @IsOptional() @IsString() @MaxLength(100) githubDelivery?: string;
  @IsOptional() @IsString() @MaxLength(200) githubSignature256?: string;
  @IsOptional() @IsString() @MaxLength(20) slackTimestamp?: string;
  @IsOptional() @IsString() @MaxLength(200) slackSignature?: string;
  @IsOptional() @IsString() @MaxLength(10) slackRetryNum?: string;
  @IsOptional() @IsString() @MaxLength(100) slackRetryReason?: string;
}

/**
 * ADR 0011: the gateway verified the provider's signature over the original
 * bytes (`rawSha256`, `rawBytes`) and forwards a reduced body; `mac` binds
 * the two (libs/contracts edge-attestation.ts).
 */
export class EdgeAttestationV1 {
  @Matches(/^[0-9a-f]{64}$/) rawSha256!: string;
  @IsInt() @Min(0) rawBytes!: number;
  @Matches(/^[0-9a-f]{64}$/) mac!: string;
}

/**
 * A webhook delivery, forwarded by the gateway after it verified the
 * provider's signature at the edge (ADR 0011). The connectors service owns
 * the secret and never takes the gateway's word for it: it checks the
 * provider's signature over the exact bytes again, or — for a reduced
 * delivery — the edge attestation; then it logs the delivery and answers at
 * once; ingestion follows asynchronously (D-36).
 */
export class ReceiveWebhookV1 {
  @IsIn(WEBHOOK_PROVIDERS) provider!: WebhookProvider;
  @IsUUID() connectorId!: string;
  @ValidateNested() @Type(() => WebhookHeadersV1) headers!: WebhookHeadersV1;
  /** The raw body: UTF-8 text when it round-trips exactly, base64 otherwise. */
  @IsString() body!: string;
  @IsIn(['utf8', 'base64']) bodyEncoding!: 'utf8' | 'base64';
  @IsISO8601({ strict: true }) receivedAt!: string;
  /** Present when `body` is a reduced form of a larger verified delivery. */
  @IsOptional() @ValidateNested() @Type(() => EdgeAttestationV1) edge?: EdgeAttestationV1;
}
export class WebhookAckV1 {
  @IsIn(['accepted', 'ignored', 'challenge']) outcome!: 'accepted' | 'ignored' | 'challenge';
  @IsOptional() @IsUUID() deliveryId!: string | null;
  /** Slack's url_verification challenge, echoed. */
  @IsOptional() @IsString() challenge?: string;
}
export const ReceiveWebhook = defineCommand({
  type: 'connectors.webhook.receive',
  version: 1,
  topic: 'connectorsCommands',
  payload: ReceiveWebhookV1,
  result: WebhookAckV1,
});

/** ADR 0011: the gateway asks for a live webhook connector's secret, sealed to a one-off X25519 key. */
export class GetWebhookSecretV1 {
  @IsIn(WEBHOOK_PROVIDERS) provider!: WebhookProvider;
  @IsUUID() connectorId!: string;
  /** SPKI DER, base64 (44 bytes for X25519). */
  @IsString() @MaxLength(200) publicKey!: string;
}
export class SealedWebhookSecretV1 {
  @IsString() @MaxLength(200) publicKey!: string;
  @IsString() @MaxLength(40) iv!: string;
  @IsString() @MaxLength(1000) ciphertext!: string;
  @IsString() @MaxLength(40) tag!: string;
}
/** NOT_FOUND when there is no live connector of that provider with a secret. */
export const GetWebhookSecret = defineCommand({
  type: 'connectors.webhook.secret',
  version: 1,
  topic: 'connectorsCommands',
  payload: GetWebhookSecretV1,
  result: SealedWebhookSecretV1,
});

/** The AES-GCM associated data of a sealed webhook secret: binds it to its connector. */
export const webhookSecretSealContext = (provider: string, connectorId: string): string => `${provider}:${connectorId}`;
