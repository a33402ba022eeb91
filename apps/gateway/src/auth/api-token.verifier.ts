import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Counter } from 'prom-client';
import { ErrorCode, Header, parseApiToken, parsePayload, TokenRevoked, Topics, VerifyToken } from '@worktrack/contracts';
import { DomainError, KafkaClient, LOGGER, Metrics, readHeaders, type AppLogger, type RunningConsumer } from '@worktrack/platform';
import { GatewayConfig } from '../gateway.config';
import { CommandClientHost } from '../rpc/command-client.host';
import type { Principal } from './principal';

const sha256hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

interface Entry {
  principal: Principal;
  verifiedAt: number;
  /** From then on a use of the entry also re-verifies it in the background. */
  refreshAt: number;
}

/** Entries younger than this are trusted even while the revocation feed is not (yet) confirmed live. */
const UNCONDITIONAL_MS = 4_000;
/** The feed counts as live while it fetched within this window. */
const FEED_LIVE_MS = 2_000;
const MAX_ENTRIES = 100_000;
/** An entry is refreshed ahead once 50–75 % of its TTL has passed (spread, so tokens verified together do not refresh together). */
const REFRESH_FROM = 0.5;
const REFRESH_SPREAD = 0.25;

/**
 * API tokens without a Kafka round trip per request: identity verifies a
 * token once (`identity.token.verify`, sent with the SHA-256 of the secret,
 * never the secret), and the result is cached by the hash of the whole token
 * for TOKEN_CACHE_TTL_MS. Every replica reads `identity.events` in a group of
 * its own and drops a revoked token at once. If that feed is not confirmed
 * live (it has not fetched in the last 2 s), cached entries older than 4 s are
 * verified again — so a revoked token is refused by every replica within 5 s
 * (D-10) even when the feed lags.
 *
 * A client in use never waits for a re-verification: past half its TTL an
 * entry is still served and re-verified in the background (refresh ahead),
 * one lookup per token at a time (concurrent requests with an unknown token
 * share one lookup too). Without this, every token expired on the request
 * path, and tokens first seen together (a deploy, a burst) expired together:
 * the sessions benchmark showed a latency spike every 30 s. A lookup that was
 * under way when the token's revocation arrived is not cached.
 */
@Injectable()
export class ApiTokenVerifier implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly cache = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<Principal>>();
  /** When this replica last heard of a token's revocation (kept for one TTL). */
  private readonly revokedAt = new Map<string, number>();
  private feed?: RunningConsumer;
  private lastFetchAt = 0;
  private readonly lookups: Counter<'outcome'>;

  constructor(
    private readonly commands: CommandClientHost,
    private readonly kafka: KafkaClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
  ) {
    this.lookups = new Counter({
      name: 'worktrack_api_token_lookups_total',
      help: 'API token verifications by outcome (cache_hit, verified, rejected).',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
  }

  get feedGroup(): string {
    return this.kafka.group(`gateway.identity-events.${this.kafka.instanceId}`);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.feed = await this.kafka.startConsumer({
      groupId: this.feedGroup,
      topics: [this.kafka.topic(Topics.identityEvents)],
      fromBeginning: false,
      concurrency: Topics.identityEvents.partitions,
      maxWaitTimeInMs: 250,
      eachMessage: ({ message }) => {
        const headers = readHeaders(message.headers);
        if (headers[Header.type] === TokenRevoked.type && message.value) {
          try {
            const event = parsePayload(TokenRevoked.payload, JSON.parse(message.value.toString('utf8')));
            this.forget(event.tokenId);
          } catch (err) {
            this.logger.error({ err }, 'unreadable token revocation; clearing the token cache');
            this.cache.clear();
          }
        }
        return Promise.resolve();
      },
    });
    this.feed.consumer.on(this.feed.consumer.events.FETCH, () => {
      this.lastFetchAt = Date.now();
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.kafka.stopPrivateConsumer(this.feed, this.feedGroup);
  }

  /** The principal of a `wt_…` token, or UNAUTHENTICATED; UNAVAILABLE when identity does not answer. */
  async verify(token: string): Promise<Principal> {
    const parsed = parseApiToken(token);
    if (!parsed) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.');
    const key = sha256hex(token);
    const cached = this.cache.get(key);
    if (cached && this.trust(cached)) {
      this.lookups.inc({ outcome: 'cache_hit' });
      if (Date.now() >= cached.refreshAt) {
        this.lookup(key, parsed.tokenId, parsed.secret).catch((err: unknown) => {
          // Refused: the entry is gone (lookup). Identity away: the entry serves out its TTL.
          if (!(err instanceof DomainError)) this.logger.warn({ err }, 'background token refresh failed');
        });
      }
      return cached.principal;
    }
    return this.lookup(key, parsed.tokenId, parsed.secret);
  }

  /** One verification per token at a time; the result replaces the cached entry. */
  private lookup(key: string, tokenId: string, secret: string): Promise<Principal> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const startedAt = Date.now();
    const lookup = this.commands.client
      .send(VerifyToken, { tokenId, secretSha256: sha256hex(secret) }, { key: tokenId })
      .then(
        ({ actor }) => {
          const principal: Principal = {
            memberId: actor.memberId,
            workspaceId: actor.workspaceId,
            scope: actor.scope,
            credential: 'api_token',
            tokenId,
          };
          // A revocation that arrived while identity was answering wins over the answer.
          if ((this.revokedAt.get(tokenId) ?? -1) < startedAt) this.remember(key, principal);
          this.lookups.inc({ outcome: 'verified' });
          return principal;
        },
        (err: unknown) => {
          if (err instanceof DomainError && err.code === ErrorCode.UNAUTHENTICATED) {
            this.cache.delete(key);
            this.lookups.inc({ outcome: 'rejected' });
          }
          throw err;
        },
      )
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, lookup);
    return lookup;
  }

  /** Drops every cached entry of a token (this replica revoked it, or the feed said so). */
  forget(tokenId: string): void {
    for (const [key, entry] of this.cache) if (entry.principal.tokenId === tokenId) this.cache.delete(key);
    const now = Date.now();
    this.revokedAt.set(tokenId, now);
    // Only lookups younger than the TTL can still be answering: older marks have no use.
    for (const [id, at] of this.revokedAt) if (now - at > this.config.TOKEN_CACHE_TTL_MS) this.revokedAt.delete(id);
  }

  private trust(entry: Entry): boolean {
    const age = Date.now() - entry.verifiedAt;
    if (age >= this.config.TOKEN_CACHE_TTL_MS) return false;
    return age < UNCONDITIONAL_MS || Date.now() - this.lastFetchAt < FEED_LIVE_MS;
  }

  private remember(key: string, principal: Principal): void {
    if (this.cache.size >= MAX_ENTRIES) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.delete(key);
    const now = Date.now();
    const ttl = this.config.TOKEN_CACHE_TTL_MS;
    this.cache.set(key, { principal, verifiedAt: now, refreshAt: now + ttl * (REFRESH_FROM + Math.random() * REFRESH_SPREAD) });
  }
}
