import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
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
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import {
  IsDateTime,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_WEBHOOK_EVENT_TYPES,
  MAX_WEBHOOK_URL_LENGTH,
  MaxCodePoints,
  RFC3339_PATTERN,
  WEBHOOK_ATTEMPT_OUTCOMES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_ID_PATTERN,
  type WebhookAttemptV1,
  type WebhookEndpointV1,
  type WebhookEventType,
} from '@worktrack/contracts';
import { UUID_PATTERN } from '../openapi/validation-schemas';

const URL_DESCRIPTION =
  'Where messages are POSTed: https, no user info, at most 2,048 characters, never a private, loopback, link-local or metadata address (checked at every delivery).';

export class CreateWebhookEndpointDto {
  @JSONSchema({ description: URL_DESCRIPTION, examples: ['https://hooks.example.com/worktrack'] })
  @IsString()
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url!: string;

  @JSONSchema({
    description: `1 to ${MAX_WEBHOOK_EVENT_TYPES} event types (no wildcards).`,
    examples: [['session.started', 'session.closed']],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_WEBHOOK_EVENT_TYPES)
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  event_types!: WebhookEventType[];

  @JSONSchema({ description: 'A label for you.' })
  @IsOptional()
  @IsString()
  @MaxCodePoints(MAX_WEBHOOK_DESCRIPTION_LENGTH)
  description?: string;
}

export class UpdateWebhookEndpointDto {
  @JSONSchema({ description: URL_DESCRIPTION })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url?: string;

  @JSONSchema({ description: `1 to ${MAX_WEBHOOK_EVENT_TYPES} event types; replaces the list.` })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_WEBHOOK_EVENT_TYPES)
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  event_types?: WebhookEventType[];

  @JSONSchema({ description: 'A label for you.' })
  @IsOptional()
  @IsString()
  @MaxCodePoints(MAX_WEBHOOK_DESCRIPTION_LENGTH)
  description?: string;

  @JSONSchema({ description: 'false stops deliveries; true resumes them (and clears `disabled_reason`).' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class RecoverWebhookMessagesDto {
  @IsDateTime()
  @JSONSchema(() => ({
    type: 'string',
    format: 'date-time',
    pattern: RFC3339_PATTERN.source,
    description: 'Re-send every message created since then whose latest attempt failed (RFC 3339 with an offset).',
  }))
  since!: string;
}

export class WebhookEndpointIdParam {
  @JSONSchema({ pattern: UUID_PATTERN, description: 'The endpoint id (a UUID).' })
  @IsUUID(undefined, { message: 'endpoint_id must be a UUID' })
  endpoint_id!: string;
}

export class WebhookIdParam {
  @JSONSchema({
    pattern: WEBHOOK_ID_PATTERN.source,
    description: 'The webhook-id of a message (`msg_` and 32 hex digits).',
    examples: ['msg_3f1c2b7e6a8d5e0f9b4c2d7a1e6f8c90'],
  })
  @Matches(WEBHOOK_ID_PATTERN, { message: 'webhook_id must be msg_ and 32 hex digits' })
  webhook_id!: string;
}

export class WebhookPageQueryDto {
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

export class WebhookEndpointBody {
  @ApiProperty({ format: 'uuid' }) endpoint_id!: string;
  @ApiProperty({ example: 'https://hooks.example.com/worktrack' }) url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) event_types!: string[];
  @ApiProperty({ type: 'string', nullable: true }) description!: string | null;
  @ApiProperty({ description: 'false after a 410, 5 days of failures, or a PATCH.' }) enabled!: boolean;
  @ApiProperty({ type: 'string', nullable: true, example: 'the endpoint answered 410 Gone' }) disabled_reason!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class WebhookEndpointWithSecretBody extends WebhookEndpointBody {
  @ApiProperty({
    description: 'The signing secret (`whsec_` + base64 of 32 bytes), shown only at creation and rotation.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret!: string;
}

export class WebhookAttemptBody {
  @ApiProperty({ format: 'uuid' }) attempt_id!: string;
  @ApiProperty({ description: 'The same on every attempt and replay of a message.', example: 'msg_3f1c2b7e6a8d5e0f9b4c2d7a1e6f8c90' })
  webhook_id!: string;
  @ApiProperty({ example: 'session.started' }) type!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null when no answer came (timeout, refused address, connection error).' })
  status_code!: number | null;
  @ApiProperty({ enum: WEBHOOK_ATTEMPT_OUTCOMES }) outcome!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) duration_ms!: number;
  @ApiProperty({ format: 'date-time' }) attempted_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the next attempt goes; null when none will.' })
  next_attempt_at!: string | null;
}

export class WebhookTestBody {
  @ApiProperty({ example: 'msg_3f1c2b7e6a8d5e0f9b4c2d7a1e6f8c90' }) webhook_id!: string;
}

export class WebhookResendBody {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Deliveries queued again.' }) messages!: number;
}

export const presentWebhookEndpoint = (e: WebhookEndpointV1): WebhookEndpointBody => ({
  endpoint_id: e.endpointId,
  url: e.url,
  event_types: e.eventTypes,
  description: e.description ?? null,
  enabled: e.enabled,
  disabled_reason: e.disabledReason ?? null,
  created_at: e.createdAt,
});

export const presentWebhookEndpointWithSecret = (e: WebhookEndpointV1): WebhookEndpointWithSecretBody => ({
  ...presentWebhookEndpoint(e),
  secret: e.secret ?? '',
});

export const presentWebhookAttempt = (a: WebhookAttemptV1): WebhookAttemptBody => ({
  attempt_id: a.attemptId,
  webhook_id: a.webhookId,
  type: a.type,
  status_code: a.statusCode ?? null,
  outcome: a.outcome,
  duration_ms: a.durationMs,
  attempted_at: a.attemptedAt,
  next_attempt_at: a.nextAttemptAt ?? null,
});
