import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import {
  ErrorCode,
  sealSecret,
  verifyAttestation,
  webhookSecretSealContext,
  type GetWebhookSecretV1,
  type ReceiveWebhookV1,
  type SealedWebhookSecretV1,
  type WebhookAckV1,
} from '@worktrack/contracts';
import { DomainError, LOGGER, Metrics, type AppLogger } from '@worktrack/platform';
import { ConnectorsRepository } from '../store/connectors.repository';
import type { ConnectorEntity } from '../store/entities/connector.entity';
import { DeliveriesRepository, type NewDelivery } from '../deliveries/deliveries.repository';
import { DeliveryProcessor } from '../deliveries/delivery.processor';
import { verifyGithubSignature } from '../github/github-signature';
import { mapGithubDelivery } from '../github/github.mapper';
import { obj, str } from '../mapping/json-read';
import type { MappingOutcome } from '../mapping/mapped-event';
import { SecretBox } from '@worktrack/platform';
import { verifySlackSignature } from '../slack/slack-signature';
import { mapSlackEnvelope } from '../slack/slack.mapper';
import {
  attestationMismatch,
  bodyNotJson,
  formPayloadMissing,
  githubHeadersMissing,
  githubSignatureMismatch,
  notAnX25519Key,
  slackNeverReduced,
  slackSignatureRefused,
  unmappableBody,
  webhookNotFound,
} from './webhooks.errors';

/** What a verified delivery is, before it is logged. */
interface Received {
  providerDeliveryId: string;
  providerEvent: string;
  retryNum: number | null;
  outcome: MappingOutcome;
}

/**
 * Receives a provider's webhook delivery (D-36): finds the connector, checks
 * the signature over the exact bytes with the connector's secret (a wrong one
 * is 401 and nothing is stored), maps it to ActivityEvents and logs it as
 * pending — then answers, well inside the providers' deadlines (GitHub 10 s,
 * Slack 3 s). The DeliveryProcessor writes the events asynchronously.
 */
@Injectable()
export class WebhooksService {
  private readonly received: Counter<'provider' | 'outcome'>;

  constructor(
    private readonly connectors: ConnectorsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly processor: DeliveryProcessor,
    private readonly box: SecretBox,
    @Inject(LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
  ) {
    this.received = metrics.counter(
      'worktrack_connector_webhooks_received_total',
      'Webhook deliveries received, by provider and outcome (accepted, ignored, challenge, refused, invalid).',
      ['provider', 'outcome'],
    );
  }

  /**
   * ADR 0011: the gateway verifies signatures at the edge with the secret,
   * which it asks for here with a one-off X25519 key and keeps briefly in
   * memory. The answer is sealed to that key: the secret is never in the
   * clear on the wire or in a Kafka log. NOT_FOUND as for a delivery.
   */
  async sealedSecret(query: GetWebhookSecretV1): Promise<SealedWebhookSecretV1> {
    const connector = await this.connectors.findLive(query.connectorId);
    if (!connector || connector.kind !== query.provider || !connector.secretBox) {
      throw webhookNotFound();
    }
    try {
      return sealSecret(this.box.open(connector.secretBox), query.publicKey, webhookSecretSealContext(query.provider, connector.id));
    } catch {
      throw notAnX25519Key();
    }
  }

  async receive(command: ReceiveWebhookV1): Promise<WebhookAckV1> {
    const connector = await this.connectors.findLive(command.connectorId);
    if (!connector || connector.kind !== command.provider || !connector.secretBox) {
      throw webhookNotFound();
    }
    const raw = Buffer.from(command.body, command.bodyEncoding);
    const receivedAt = new Date(command.receivedAt);
    const secret = this.box.open(connector.secretBox);
    try {
      if (command.provider === 'slack') {
        const ack = this.slack(connector, command, raw, secret, receivedAt);
        if ('challenge' in ack) {
          this.received.inc({ provider: 'slack', outcome: 'challenge' });
          return { outcome: 'challenge', deliveryId: null, challenge: ack.challenge };
        }
        return await this.record(connector, ack, receivedAt);
      }
      return await this.record(connector, this.github(connector, command, raw, secret, receivedAt), receivedAt);
    } catch (err) {
      if (err instanceof DomainError) {
        this.received.inc({ provider: command.provider, outcome: err.code === ErrorCode.UNAUTHENTICATED ? 'refused' : 'invalid' });
        if (err.code === ErrorCode.UNAUTHENTICATED) this.logger.warn({ connectorId: connector.id, reason: err.message }, 'webhook refused');
      }
      throw err;
    }
  }

  private github(connector: ConnectorEntity, command: ReceiveWebhookV1, raw: Buffer, secret: string, receivedAt: Date): Received {
    const { githubEvent, githubDelivery, githubSignature256 } = command.headers;
    let { contentType } = command.headers;
    if (command.edge) {
      // A reduced delivery: the gateway verified GitHub's signature over the original bytes; the attestation proves it held the secret.
      const attested = verifyAttestation(
        secret,
        {
          provider: 'github',
          connectorId: connector.id,
          deliveryId: githubDelivery ?? '',
          rawSha256: command.edge.rawSha256,
          rawBytes: command.edge.rawBytes,
          body: command.body,
        },
        command.edge.mac,
      );
      if (!attested || command.bodyEncoding !== 'utf8') {
        throw attestationMismatch();
      }
      contentType = 'application/json';
    } else if (!verifyGithubSignature(secret, githubSignature256, raw)) {
      throw githubSignatureMismatch();
    }
    const missing = [!githubEvent && 'X-GitHub-Event', !githubDelivery && 'X-GitHub-Delivery'].filter((h): h is string => Boolean(h));
    if (missing.length > 0 || !githubEvent || !githubDelivery) {
      throw githubHeadersMissing(missing);
    }
    const body = parseBody(raw, contentType);
    return {
      providerDeliveryId: githubDelivery,
      providerEvent: githubEvent,
      retryNum: null,
      outcome: mapGithubDelivery({ event: githubEvent, deliveryId: githubDelivery, body, account: connector.account, receivedAt }),
    };
  }

  private slack(
    connector: ConnectorEntity,
    command: ReceiveWebhookV1,
    raw: Buffer,
    signingSecret: string,
    receivedAt: Date,
  ): Received | { challenge: string } {
    const { slackTimestamp, slackSignature, slackRetryNum, contentType } = command.headers;
    if (command.edge) throw slackNeverReduced();
    const check = verifySlackSignature({
      signingSecret,
      timestamp: slackTimestamp,
      signature: slackSignature,
      rawBody: raw,
      now: receivedAt,
    });
    if (!check.ok) {
      const why = {
        missing: 'X-Slack-Signature or X-Slack-Request-Timestamp is missing.',
        stale: 'X-Slack-Request-Timestamp is outside the 5-minute window (replay protection).',
        mismatch: 'X-Slack-Signature does not match the signing secret.',
      }[check.reason];
      throw slackSignatureRefused(why);
    }
    const body = parseBody(raw, contentType);
    const mapped = mapSlackEnvelope({ body, account: connector.account, receivedAt });
    if (mapped.kind === 'url_verification') return { challenge: mapped.challenge };
    const envelope = obj(body) ?? {};
    const event = obj(envelope.event) ?? {};
    const retry = slackRetryNum !== undefined ? Number.parseInt(slackRetryNum, 10) : NaN;
    return {
      providerDeliveryId: str(envelope.event_id) ?? `slack:${randomUUID()}`,
      providerEvent: str(event.type) ?? str(envelope.type) ?? 'unknown',
      retryNum: Number.isInteger(retry) && retry >= 0 ? retry : null,
      outcome: mapped,
    };
  }

  /** Logs the delivery (the body itself is never stored), then answers; mapped events are written asynchronously. */
  private async record(connector: ConnectorEntity, received: Received, receivedAt: Date): Promise<WebhookAckV1> {
    const { outcome } = received;
    const delivery: NewDelivery = {
      id: randomUUID(),
      connectorId: connector.id,
      receivedAt,
      providerDeliveryId: received.providerDeliveryId.slice(0, 200),
      providerEvent: received.providerEvent.slice(0, 100),
      retryNum: received.retryNum,
      state:
        outcome.kind === 'mapped' ? (outcome.events.length > 0 ? 'pending' : 'ignored') : outcome.kind === 'ignored' ? 'ignored' : 'failed',
      events: outcome.kind === 'mapped' ? outcome.events : [],
      eventsMapped: outcome.kind === 'mapped' ? outcome.events.length : 0,
      detail: outcome.kind === 'mapped' ? (outcome.events.length > 0 ? null : 'nothing to map') : outcome.reason,
    };
    await this.connectors.transaction(async (m) => {
      await this.deliveries.insert(delivery, m);
      await this.connectors.touchDelivery(connector.id, receivedAt, m);
    });
    const provider = connector.kind;
    if (outcome.kind === 'invalid') {
      this.received.inc({ provider, outcome: 'invalid' });
      throw unmappableBody(provider, received.providerEvent, outcome.reason);
    }
    if (delivery.state === 'pending') {
      this.processor.kick();
      this.received.inc({ provider, outcome: 'accepted' });
      return { outcome: 'accepted', deliveryId: delivery.id };
    }
    this.received.inc({ provider, outcome: 'ignored' });
    this.logger.info({ connectorId: connector.id, deliveryId: delivery.id, reason: delivery.detail }, 'webhook delivery ignored');
    return { outcome: 'ignored', deliveryId: delivery.id };
  }
}

/** JSON, or GitHub's form encoding (`payload=<json>`). Unparseable → 400 INVALID_JSON (D-2). */
function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  let text = raw.toString('utf8');
  if (contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const payload = new URLSearchParams(text).get('payload');
    if (payload === null) throw formPayloadMissing();
    text = payload;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw bodyNotJson();
  }
}
