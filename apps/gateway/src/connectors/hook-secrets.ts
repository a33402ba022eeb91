import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  GetWebhookSecret,
  newUnsealKey,
  unsealSecret,
  webhookSecretSealContext,
  type WebhookProvider,
} from '@worktrack/contracts';
import { CommandClient, DomainError, isDomainError, Metrics } from '@worktrack/platform';
import type { Counter } from 'prom-client';
import { GatewayConfig } from '../gateway.config';

/** How long "no such webhook" is remembered: forged hook ids cost one round trip per id per this long. */
const NEGATIVE_TTL_MS = 5_000;
/** Entries kept at most (oldest dropped first). */
const MAX_ENTRIES = 10_000;

type Entry = { at: number; secret: string | null };

/**
 * ADR 0011: the webhook secrets the gateway needs to verify provider
 * signatures at the edge. Asked from the connectors service per connector
 * (GetWebhookSecret, answered sealed to a one-off X25519 key), kept in memory
 * only, for HOOK_SECRET_CACHE_TTL_MS; unknown connectors are remembered for
 * a few seconds. Concurrent deliveries for one connector share one request.
 * A rotated or deleted connector is seen within the TTL at most; meanwhile
 * the connectors service, which checks again, refuses what it must.
 */
@Injectable()
export class HookSecrets {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<string | null>>();
  private readonly lookups: Counter<'outcome'>;

  constructor(
    private readonly commands: CommandClient,
    private readonly config: GatewayConfig,
    metrics: Metrics,
  ) {
    this.lookups = metrics.counter(
      'worktrack_hook_secret_lookups_total',
      'Webhook secret lookups at the edge, by outcome (cache_hit, fetched, unknown).',
      ['outcome'],
    );
  }

  /** The connector's secret, or NOT_FOUND ("No such webhook."). UNAVAILABLE when the connectors service does not answer. */
  async secretOf(provider: WebhookProvider, connectorId: string): Promise<string> {
    const key = `${provider}:${connectorId}`;
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && now - cached.at < (cached.secret === null ? NEGATIVE_TTL_MS : this.config.HOOK_SECRET_CACHE_TTL_MS)) {
      this.lookups.inc({ outcome: 'cache_hit' });
      return found(cached.secret);
    }
    let request = this.pending.get(key);
    if (!request) {
      request = this.fetch(provider, connectorId).finally(() => this.pending.delete(key));
      this.pending.set(key, request);
    }
    return found(await request);
  }

  private async fetch(provider: WebhookProvider, connectorId: string): Promise<string | null> {
    const unseal = newUnsealKey();
    let secret: string | null;
    try {
      const sealed = await this.commands.send(
        GetWebhookSecret,
        { provider, connectorId, publicKey: unseal.publicKey },
        { key: connectorId },
      );
      secret = unsealSecret(sealed, unseal, webhookSecretSealContext(provider, connectorId));
      this.lookups.inc({ outcome: 'fetched' });
    } catch (err) {
      if (!isDomainError(err) || err.code !== ErrorCode.NOT_FOUND) throw err;
      secret = null;
      this.lookups.inc({ outcome: 'unknown' });
    }
    if (this.config.HOOK_SECRET_CACHE_TTL_MS > 0 || secret === null) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(`${provider}:${connectorId}`, { at: Date.now(), secret });
    }
    return secret;
  }
}

function found(secret: string | null): string {
  if (secret === null) throw new DomainError(ErrorCode.NOT_FOUND, 'No such webhook.');
  return secret;
}
