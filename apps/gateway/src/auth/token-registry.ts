import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { Header, parsePayload, TokenState, Topics, type TokenStateV1 } from '@worktrack/contracts';
import { type AppLogger, KafkaClient, LOGGER, Metrics, readHeaders, type RunningConsumer } from '@worktrack/platform';
import { GatewayConfig } from '../gateway.config';

/** What the registry can say of a presented token without asking identity. */
export type TokenVerdict =
  /** The id exists, is not revoked or expired, and the secret passes the check: identity (or the cache) confirms. */
  | 'plausible'
  /** Certainly not a valid token: an unknown id, a revoked or expired token, or a secret that fails the check. */
  | 'refused'
  /** The registry is not complete or not following the topic right now: ask identity. */
  | 'undecided';

interface Known {
  /** `TokenStateV1.secretCheck`. */
  check: string;
  revoked: boolean;
  /** Epoch ms, or null for a token that never expires. */
  expiresAt: number | null;
}

/** Compares in time independent of where the texts differ. */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The registry counts as following the topic while it fetched within this window (idle fetches come every 2 s). */
const LIVE_MS = 5_000;
/** At most this many requests wait for an id to arrive at once; past it an unknown id is refused at once. */
const MAX_WAITERS = 10_000;

/**
 * D-37: every API token id of the deployment, with its state and a check of
 * its secret, read from the compacted `identity.tokens` (identity writes it
 * whenever a token is minted, revoked or expires). Each replica reads the
 * whole topic from the start every time it starts (its group never commits
 * offsets) and keeps it in memory, so an unknown or revoked token is refused
 * without a round trip to identity, however many different ids a client
 * invents.
 *
 * The registry trusts itself only once it read everything the topic held
 * when the replica started (`complete`) and while its consumer fetches
 * (`live`); otherwise it answers `undecided` and the verifier asks identity,
 * as before. A token minted a moment ago may reach this replica after its
 * first use (identity answers the minting request, then its outbox relay
 * publishes): an unknown id therefore waits up to TOKEN_REGISTRY_GRACE_MS for
 * its id to arrive before it is refused.
 */
@Injectable()
export class TokenRegistry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly tokens = new Map<string, Known>();
  private readonly waiters = new Map<string, Array<() => void>>();
  private waiting = 0;
  /** Partitions still to read up to the offset they ended at when the replica started (partition → last offset). */
  private readonly backlog = new Map<number, bigint>();
  private complete = false;
  private lastFetchAt = 0;
  private feed?: RunningConsumer;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
  ) {
    const tokens = this.tokens;
    new Gauge({
      name: 'worktrack_token_registry_tokens',
      help: 'API token ids the replica knows from identity.tokens (D-37).',
      registers: [metrics.registry],
      collect() {
        this.set(tokens.size);
      },
    });
  }

  get group(): string {
    return this.kafka.group(`gateway.token-registry.${this.kafka.instanceId}`);
  }

  async onApplicationBootstrap(): Promise<void> {
    const topic = this.kafka.topic(Topics.identityTokens);
    const offsets = await (await this.kafka.admin()).fetchTopicOffsets(topic);
    for (const { partition, high, low } of offsets) if (BigInt(high) > BigInt(low)) this.backlog.set(partition, BigInt(high) - 1n);
    this.complete = this.backlog.size === 0;
    this.feed = await this.kafka.startConsumer({
      groupId: this.group,
      topics: [topic],
      fromBeginning: true,
      commitOffsets: false,
      concurrency: 1,
      eachMessage: ({ partition, message }) => {
        if (message.value && readHeaders(message.headers)[Header.type] === TokenState.type) {
          try {
            this.apply(parsePayload(TokenState.payload, JSON.parse(message.value.toString('utf8')) as unknown));
          } catch (err) {
            this.logger.error({ err, partition, offset: message.offset }, 'unreadable token state; skipped');
          }
        }
        this.consumed(partition, BigInt(message.offset));
        return Promise.resolve();
      },
    });
    const { FETCH, END_BATCH_PROCESS } = this.feed.consumer.events;
    this.feed.consumer.on(FETCH, () => {
      this.lastFetchAt = Date.now();
    });
    // Compaction may have removed a partition's last records: the batch's end says where the partition ends.
    this.feed.consumer.on(END_BATCH_PROCESS, ({ payload }) => {
      if (payload.offsetLag === '0') this.consumed(payload.partition, this.backlog.get(payload.partition) ?? 0n);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.kafka.stopPrivateConsumer(this.feed, this.group);
    for (const wake of [...this.waiters.values()].flat()) wake();
  }

  /** Whether the registry can refuse by itself: complete, and following the topic. */
  get live(): boolean {
    return this.complete && Date.now() - this.lastFetchAt < LIVE_MS;
  }

  /**
   * Judges a token by its id and the SHA-256 (hex) of its secret, at once;
   * `unknown` for an id the live registry does not know (yet): then
   * `awaitVerdict`.
   */
  verdict(tokenId: string, secretSha256: string): TokenVerdict | 'unknown' {
    if (!this.live) return 'undecided';
    const known = this.tokens.get(tokenId);
    if (!known) return 'unknown';
    if (known.revoked || (known.expiresAt !== null && known.expiresAt <= Date.now())) return 'refused';
    return sameText(known.check, secretSha256.slice(0, known.check.length)) ? 'plausible' : 'refused';
  }

  /** The verdict once an unknown id arrived, or TOKEN_REGISTRY_GRACE_MS passed (then `refused`, or `undecided` when the registry stopped following). */
  async awaitVerdict(tokenId: string, secretSha256: string): Promise<TokenVerdict> {
    if (!this.live) return 'undecided';
    await this.arrival(tokenId, this.config.TOKEN_REGISTRY_GRACE_MS);
    const verdict = this.verdict(tokenId, secretSha256);
    return verdict === 'unknown' ? 'refused' : verdict;
  }

  private apply(state: TokenStateV1): void {
    this.tokens.set(state.tokenId, {
      check: state.secretCheck,
      revoked: state.revoked,
      expiresAt: state.expiresAt ? Date.parse(state.expiresAt) : null,
    });
    const waiting = this.waiters.get(state.tokenId);
    if (waiting) {
      this.waiters.delete(state.tokenId);
      for (const wake of waiting) wake();
    }
  }

  private consumed(partition: number, offset: bigint): void {
    if (this.complete) return;
    const last = this.backlog.get(partition);
    if (last !== undefined && offset >= last) this.backlog.delete(partition);
    if (this.backlog.size === 0) {
      this.complete = true;
      this.logger.info({ tokens: this.tokens.size }, 'token registry complete');
    }
  }

  /** Resolves when `tokenId` arrives or after `ms`, whichever is first (at once when too many wait already). */
  private arrival(tokenId: string, ms: number): Promise<void> {
    if (ms <= 0 || this.waiting >= MAX_WAITERS) return Promise.resolve();
    return new Promise((resolve) => {
      let done = false;
      const wake = (): void => {
        if (done) return;
        done = true;
        this.waiting -= 1;
        clearTimeout(timer);
        const list = this.waiters.get(tokenId);
        const at = list?.indexOf(wake) ?? -1;
        if (list && at >= 0) list.splice(at, 1);
        if (list?.length === 0) this.waiters.delete(tokenId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiting += 1;
      const list = this.waiters.get(tokenId);
      if (list) list.push(wake);
      else this.waiters.set(tokenId, [wake]);
    });
  }
}
