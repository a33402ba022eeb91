import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsDateTime } from '../calendar';
import { ActorV1 } from '../identity/member';
import { MaxCodePoints } from '../input-safety';
import { defineCommand } from '../message';

/**
 * D-54: the event types an endpoint may name (no wildcards). `webhook.test`
 * is only sent by `POST …/{id}/test` and is never subscribed to.
 */
export const WEBHOOK_EVENT_TYPES = [
  'session.started',
  'session.paused',
  'session.resumed',
  'session.closed',
  'plate.item.assigned',
  'member.joined',
  'member.deactivated',
  'activity.event.linked',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_TEST_TYPE = 'webhook.test';

/** D-53 limits. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_WEBHOOK_EVENT_TYPES = 50;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;

/** D-56: `outcome` of one delivery attempt. */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['succeeded', 'failed'] as const;
export type WebhookAttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];

/** A webhook-id (D-55): `msg_` and 32 hex digits, derived from the source event. */
export const WEBHOOK_ID_PATTERN = /^msg_[0-9a-f]{32}$/;

/** An endpoint as listed (D-53); `secret` only at creation and rotation. */
export class WebhookEndpointV1 {
  @IsUUID() endpointId!: string;
  @IsString() url!: string;
  @IsArray() @IsString({ each: true }) eventTypes!: string[];
  @IsOptional() @IsString() description!: string | null;
  @IsBoolean() enabled!: boolean;
  @IsOptional() @IsString() disabledReason!: string | null;
  @IsString() createdAt!: string;
  @IsOptional() @IsString() secret?: string;
}

/** POST /v1/webhook-endpoints (owners and admins). The URL's rules are the service's (D-53). */
export class CreateWebhookEndpointV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsString() @MaxLength(MAX_WEBHOOK_URL_LENGTH) url!: string;
  @IsArray() @IsString({ each: true }) @MaxLength(64, { each: true }) eventTypes!: string[];
  @IsOptional() @IsString() @MaxCodePoints(MAX_WEBHOOK_DESCRIPTION_LENGTH) description?: string | null;
}
export const CreateWebhookEndpoint = defineCommand({
  type: 'webhooks.endpoints.create',
  version: 1,
  topic: 'webhooksCommands',
  payload: CreateWebhookEndpointV1,
  result: WebhookEndpointV1,
});

export class ListWebhookEndpointsV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsInt() @Min(1) @Max(100) limit!: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
export class WebhookEndpointPageV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => WebhookEndpointV1) endpoints!: WebhookEndpointV1[];
  @IsOptional() @IsString() nextCursor!: string | null;
}
export const ListWebhookEndpoints = defineCommand({
  type: 'webhooks.endpoints.list',
  version: 1,
  topic: 'webhooksCommands',
  payload: ListWebhookEndpointsV1,
  result: WebhookEndpointPageV1,
});

/** One endpoint of the caller's workspace (GET, DELETE, rotate-secret, test). */
export class WebhookEndpointRefV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() endpointId!: string;
}
export const GetWebhookEndpoint = defineCommand({
  type: 'webhooks.endpoints.get',
  version: 1,
  topic: 'webhooksCommands',
  payload: WebhookEndpointRefV1,
  result: WebhookEndpointV1,
});
export const DeleteWebhookEndpoint = defineCommand({
  type: 'webhooks.endpoints.delete',
  version: 1,
  topic: 'webhooksCommands',
  payload: WebhookEndpointRefV1,
  result: WebhookEndpointV1,
});
/** A new secret; the old one keeps signing beside it for 24 hours (D-53). */
export const RotateWebhookSecret = defineCommand({
  type: 'webhooks.endpoints.rotate-secret',
  version: 1,
  topic: 'webhooksCommands',
  payload: WebhookEndpointRefV1,
  result: WebhookEndpointV1,
});
export class WebhookMessageRefV1 {
  @Matches(WEBHOOK_ID_PATTERN) webhookId!: string;
}
/** A signed `webhook.test` message to one endpoint (D-53). */
export const TestWebhookEndpoint = defineCommand({
  type: 'webhooks.endpoints.test',
  version: 1,
  topic: 'webhooksCommands',
  payload: WebhookEndpointRefV1,
  result: WebhookMessageRefV1,
});

export class UpdateWebhookEndpointV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() endpointId!: string;
  @IsOptional() @IsString() @MaxLength(MAX_WEBHOOK_URL_LENGTH) url?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) @MaxLength(64, { each: true }) eventTypes?: string[];
  @IsOptional() @IsString() @MaxCodePoints(MAX_WEBHOOK_DESCRIPTION_LENGTH) description?: string | null;
  @IsOptional() @IsBoolean() enabled?: boolean;
}
export const UpdateWebhookEndpoint = defineCommand({
  type: 'webhooks.endpoints.update',
  version: 1,
  topic: 'webhooksCommands',
  payload: UpdateWebhookEndpointV1,
  result: WebhookEndpointV1,
});

/** One delivery attempt (D-56). */
export class WebhookAttemptV1 {
  @IsUUID() attemptId!: string;
  @Matches(WEBHOOK_ID_PATTERN) webhookId!: string;
  @IsString() type!: string;
  @IsOptional() @IsInt() statusCode!: number | null;
  @IsIn(WEBHOOK_ATTEMPT_OUTCOMES) outcome!: WebhookAttemptOutcome;
  @IsInt() @Min(0) durationMs!: number;
  @IsString() attemptedAt!: string;
  @IsOptional() @IsString() nextAttemptAt!: string | null;
}
export class ListWebhookAttemptsV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() endpointId!: string;
  @IsInt() @Min(1) @Max(100) limit!: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
export class WebhookAttemptPageV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => WebhookAttemptV1) attempts!: WebhookAttemptV1[];
  @IsOptional() @IsString() nextCursor!: string | null;
}
export const ListWebhookAttempts = defineCommand({
  type: 'webhooks.attempts.list',
  version: 1,
  topic: 'webhooksCommands',
  payload: ListWebhookAttemptsV1,
  result: WebhookAttemptPageV1,
});

/** POST /v1/webhook-messages/{webhook_id}/replay: the same id and body again, to every endpoint it went to. */
export class ReplayWebhookMessageV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @Matches(WEBHOOK_ID_PATTERN) webhookId!: string;
}
export class WebhookResendV1 {
  @IsInt() @Min(0) messages!: number;
}
export const ReplayWebhookMessage = defineCommand({
  type: 'webhooks.messages.replay',
  version: 1,
  topic: 'webhooksCommands',
  payload: ReplayWebhookMessageV1,
  result: WebhookResendV1,
});

/** POST /v1/webhook-endpoints/{id}/recover: every message since `since` whose latest attempt failed. */
export class RecoverWebhookMessagesV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() endpointId!: string;
  @IsDateTime() since!: string;
}
export const RecoverWebhookMessages = defineCommand({
  type: 'webhooks.endpoints.recover',
  version: 1,
  topic: 'webhooksCommands',
  payload: RecoverWebhookMessagesV1,
  result: WebhookResendV1,
});
