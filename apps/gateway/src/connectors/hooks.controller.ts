import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  attestDelivery,
  ErrorCode,
  MAX_REDUCED_WEBHOOK_BODY_BYTES,
  MAX_WEBHOOK_BODY_BYTES,
  ReceiveWebhook,
  sha256Hex,
  type EdgeAttestationV1,
  type WebhookHeadersV1,
  type WebhookProvider,
} from '@worktrack/contracts';
import { CommandClient, isDomainError } from '@worktrack/platform';
import { ApiData, ApiErrors } from '../openapi/api-responses';
import { FailedAuthentications } from '../rate-limit/failed-authentications';
import { ApiValidatedParams } from '../openapi/validation-schemas';
import { ConnectorIdParam, WebhookAckBody } from './connectors.dto';
import { checkGithub, checkSlack } from './hook-signature';
import { HookSecrets } from './hook-secrets';
import { deliveryNotJson, deliveryTooLarge, formWithoutPayload, signatureRefused } from './hooks.errors';
import { rawBodyOf } from '../edge/body-parsers';
import { reduceGithubDelivery } from './webhook-reducer';

/**
 * Provider webhooks (D-36), outside /v1 and without a bearer: the provider's
 * signature is the credential, and it is checked here, at the edge, over the
 * exact bytes (ADR 0011) — an unsigned body never reaches the connectors
 * service. Verified deliveries up to 1 MiB are forwarded as received (the
 * connectors service checks the signature again); larger GitHub deliveries
 * (up to 25 MB) are forwarded reduced, with an edge attestation. The
 * connectors service logs and answers at once; the events are written
 * asynchronously (GitHub waits 10 s, Slack 3 s).
 */
/** A provider's delivery: its own JSON, opaque to the API (the signature covers the exact bytes). */
const deliveryBody = (description: string, example: Record<string, unknown>): MethodDecorator =>
  ApiBody({ required: true, description, schema: { type: 'object', additionalProperties: true, examples: [example] } });

@Controller('hooks')
export class HooksController {
  constructor(
    private readonly commands: CommandClient,
    private readonly secrets: HookSecrets,
    private readonly failures: FailedAuthentications,
  ) {}

  @Post('github/:connector_id')
  @HttpCode(202)
  @ApiOperation({
    summary: 'GitHub webhook endpoint',
    description:
      'Point a repository or organisation webhook here (JSON or form content type) with the connector’s secret. X-Hub-Signature-256 is checked in constant time; ' +
      'push, pull_request, workflow_run, check_run, deployment_status and release become ActivityEvents (external_id = X-GitHub-Delivery + index, so redeliveries dedupe). ' +
      'Deliveries up to GitHub’s 25 MB limit are accepted; what is stored stays bounded. Other events are acknowledged and logged as ignored.',
  })
  @ApiValidatedParams(ConnectorIdParam)
  @deliveryBody('The delivery as GitHub sends it (`application/json`; a form-encoded `payload=` is accepted too).', {
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '59b20b8d5c6ff8d09518454d4dd8b7b30f095ab5',
    repository: { id: 1296269, full_name: 'octocat/Hello-World' },
    pusher: { name: 'octocat' },
    commits: [{ id: '59b20b8d5c6ff8d09518454d4dd8b7b30f095ab5', message: 'Fix the flaky login test' }],
  })
  @ApiData(202, WebhookAckBody, 'Verified and logged; events follow asynchronously.')
  @ApiErrors(
    ErrorCode.UNAUTHENTICATED,
    ErrorCode.NOT_FOUND,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.RATE_LIMITED,
  )
  github(
    @Param() params: ConnectorIdParam,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ data: WebhookAckBody }> {
    return this.forward('github', params.connector_id, request, reply).then((ack) => ({ data: ack }));
  }

  @Post('slack/:connector_id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Slack Events API endpoint',
    description:
      'The Request URL of a Slack app whose signing secret the connector holds. Answers the url_verification challenge (`{ "challenge": … }`); ' +
      'checks the v0 signature within a 5-minute window; retries (X-Slack-Retry-Num) dedupe by event_id. Messages, reactions and huddles become metadata-only events.',
  })
  @ApiValidatedParams(ConnectorIdParam)
  @deliveryBody('The Events API callback as Slack sends it.', {
    token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: 'Ev0PV52K21',
    event_time: 1772443800,
    event: { type: 'message', channel: 'C2147483705', user: 'U2147483697', ts: '1772443800.000200' },
  })
  @ApiExtraModels(WebhookAckBody)
  @ApiResponse({
    status: 200,
    description: 'Verified and logged; for a `url_verification` callback, the challenge echoed instead.',
    schema: {
      oneOf: [
        {
          type: 'object',
          title: 'Acknowledged',
          required: ['data'],
          additionalProperties: false,
          properties: { data: { $ref: getSchemaPath(WebhookAckBody) } },
        },
        {
          type: 'object',
          title: 'URL verification',
          required: ['challenge'],
          additionalProperties: false,
          properties: {
            challenge: {
              type: 'string',
              description: 'The `challenge` Slack sent.',
              example: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
            },
          },
        },
      ],
    },
  })
  @ApiErrors(
    ErrorCode.UNAUTHENTICATED,
    ErrorCode.NOT_FOUND,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.RATE_LIMITED,
  )
  async slack(
    @Param() params: ConnectorIdParam,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ data: WebhookAckBody } | { challenge: string }> {
    const ack = await this.forward('slack', params.connector_id, request, reply);
    return ack.challenge !== undefined ? { challenge: ack.challenge } : { data: ack };
  }

  private async forward(
    provider: WebhookProvider,
    connectorId: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<WebhookAckBody & { challenge?: string }> {
    const raw = rawBodyOf(request);
    const receivedAt = new Date();
    const header = (name: string): string | undefined => {
      const value = request.headers[name];
      return typeof value === 'string' ? value.slice(0, 200) : undefined;
    };
    const headers: WebhookHeadersV1 = {
      contentType: header('content-type'),
      githubEvent: header('x-github-event'),
      githubDelivery: header('x-github-delivery'),
      githubSignature256: header('x-hub-signature-256'),
      slackTimestamp: header('x-slack-request-timestamp')?.slice(0, 20),
      slackSignature: header('x-slack-signature'),
      slackRetryNum: header('x-slack-retry-num')?.slice(0, 10),
      slackRetryReason: header('x-slack-retry-reason')?.slice(0, 100),
    };

    // Verified at the edge, before anything is forwarded; a failure past the address' limit is a 429 (D-37).
    let secret: string;
    try {
      secret = await this.secrets.secretOf(provider, connectorId);
    } catch (err) {
      if (isDomainError(err) && err.code === ErrorCode.NOT_FOUND) await this.failures.refuse(request, reply, err);
      throw err;
    }
    const check =
      provider === 'github'
        ? checkGithub(secret, headers.githubSignature256, raw)
        : checkSlack(secret, headers.slackTimestamp, headers.slackSignature, raw, receivedAt);
    if (!check.ok) await this.failures.refuse(request, reply, signatureRefused(check.message));

    let body: string;
    let bodyEncoding: 'utf8' | 'base64';
    let edge: EdgeAttestationV1 | undefined;
    if (raw.length <= MAX_WEBHOOK_BODY_BYTES) {
      const text = raw.toString('utf8');
      const exact = Buffer.from(text, 'utf8').equals(raw);
      body = exact ? text : raw.toString('base64');
      bodyEncoding = exact ? 'utf8' : 'base64';
    } else {
      // A large verified delivery goes on in a bounded form, attested.
      body = this.reduced(provider, raw, headers);
      bodyEncoding = 'utf8';
      const rawSha256 = sha256Hex(raw);
      const mac = attestDelivery(secret, {
        provider,
        connectorId,
        deliveryId: headers.githubDelivery ?? '',
        rawSha256,
        rawBytes: raw.length,
        body,
      });
      edge = { rawSha256, rawBytes: raw.length, mac };
      headers.contentType = 'application/json';
    }

    const ack = await this.commands.send(
      ReceiveWebhook,
      {
        provider,
        connectorId,
        headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)),
        body,
        bodyEncoding,
        receivedAt: receivedAt.toISOString(),
        ...(edge ? { edge } : {}),
      },
      { key: connectorId },
    );
    return {
      outcome: ack.outcome,
      delivery_id: ack.deliveryId ?? null,
      ...(ack.challenge !== undefined ? { challenge: ack.challenge } : {}),
    };
  }

  /** The bounded form of a large verified GitHub delivery (JSON or form-encoded), as JSON text. */
  private reduced(provider: WebhookProvider, raw: Buffer, headers: WebhookHeadersV1): string {
    const tooLarge = () => deliveryTooLarge(provider, MAX_WEBHOOK_BODY_BYTES);
    if (provider !== 'github') throw tooLarge();
    let text = raw.toString('utf8');
    if (headers.contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
      const payload = new URLSearchParams(text).get('payload');
      if (payload === null) throw formWithoutPayload();
      text = payload;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      throw deliveryNotJson();
    }
    const reduced = reduceGithubDelivery(parsed, MAX_REDUCED_WEBHOOK_BODY_BYTES);
    if (!reduced) throw tooLarge();
    return reduced.json;
  }
}
