import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ErrorCode, ReceiveWebhook, type WebhookHeadersV1, type WebhookProvider } from '@worktrack/contracts';
import { ApiData, ApiErrors } from '../openapi/api-responses';
import { ApiValidatedParams } from '../openapi/validation-schemas';
import { CommandClientHost } from '../rpc/command-client.host';
import { ConnectorIdParam, WebhookAckBody } from './connectors.dto';
import { rawBodyOf } from './raw-body';

/**
 * Provider webhooks (D-36), outside /v1 and without a bearer: the provider's
 * signature is the credential. The exact bytes go to the connectors service,
 * which owns the secret, verifies, logs and answers at once; the events are
 * written asynchronously (GitHub waits 10 s, Slack 3 s).
 */
@Controller('hooks')
export class HooksController {
  constructor(private readonly commands: CommandClientHost) {}

  @Post('github/:connector_id')
  @HttpCode(202)
  @ApiOperation({
    summary: 'GitHub webhook endpoint',
    description:
      'Point a repository or organisation webhook here (JSON or form content type) with the connector’s secret. X-Hub-Signature-256 is checked in constant time; ' +
      'push, pull_request, workflow_run, check_run, deployment_status and release become ActivityEvents (external_id = X-GitHub-Delivery + index, so redeliveries dedupe). ' +
      'Other events are acknowledged and logged as ignored.',
  })
  @ApiValidatedParams(ConnectorIdParam)
  @ApiData(202, WebhookAckBody, 'Verified and logged; events follow asynchronously.')
  @ApiErrors(ErrorCode.UNAUTHENTICATED, ErrorCode.NOT_FOUND, ErrorCode.UNSUPPORTED_MEDIA_TYPE)
  github(@Param() params: ConnectorIdParam, @Req() request: FastifyRequest): Promise<{ data: WebhookAckBody }> {
    return this.forward('github', params.connector_id, request).then((ack) => ({ data: ack }));
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
  @ApiData(200, WebhookAckBody, 'Verified and logged (for url_verification the body is `{ "challenge": "…" }` instead).')
  @ApiErrors(ErrorCode.UNAUTHENTICATED, ErrorCode.NOT_FOUND, ErrorCode.UNSUPPORTED_MEDIA_TYPE)
  async slack(
    @Param() params: ConnectorIdParam,
    @Req() request: FastifyRequest,
  ): Promise<{ data: WebhookAckBody } | { challenge: string }> {
    const ack = await this.forward('slack', params.connector_id, request);
    return ack.challenge !== undefined ? { challenge: ack.challenge } : { data: ack };
  }

  private async forward(
    provider: WebhookProvider,
    connectorId: string,
    request: FastifyRequest,
  ): Promise<WebhookAckBody & { challenge?: string }> {
    const raw = rawBodyOf(request);
    const text = raw.toString('utf8');
    const exact = Buffer.from(text, 'utf8').equals(raw);
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
    const ack = await this.commands.client.send(
      ReceiveWebhook,
      {
        provider,
        connectorId,
        headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)),
        body: exact ? text : raw.toString('base64'),
        bodyEncoding: exact ? 'utf8' : 'base64',
        receivedAt: new Date().toISOString(),
      },
      { key: connectorId },
    );
    return {
      outcome: ack.outcome,
      delivery_id: ack.deliveryId ?? null,
      ...(ack.challenge !== undefined ? { challenge: ack.challenge } : {}),
    };
  }
}
