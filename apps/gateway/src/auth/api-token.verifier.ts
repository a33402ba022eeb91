import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Counter } from 'prom-client';
import {
  ErrorCode,
  Header,
  MemberChanged,
  parseApiToken,
  parsePayload,
  ResolveMember,
  toMemberProfile,
  TokenRevoked,
  Topics,
  VerifyToken,
  type MemberProfileV1,
  type MemberV1,
} from '@worktrack/contracts';
import {
  type AppLogger,
  CommandClient,
  DomainError,
  KafkaClient,
  LOGGER,
  Metrics,
  readHeaders,
  type RunningConsumer,
} from '@worktrack/platform';
import { unauthenticated } from './auth.errors';
import { GatewayConfig } from '../gateway.config';
import type { Principal } from './principal';

/** The credential of an `Authorization: Bearer …` header (as the auth guard reads it). */
export const BEARER = /^Bearer\s+(\S+)$/i;

const sha256hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');
const isRefusal = (err: unknown): err is DomainError => err instanceof DomainError && err.code === ErrorCode.UNAUTHENTICATED;

interface Entry<V> {
  value: V;
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

/** A bounded map that forgets its oldest entry when full. */
function setBounded<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  if (map.size >= MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}

/**
 * Every credential resolved to an active member of its workspace, without a
 * Kafka round trip per request (issue 14):
 *
 * - API tokens: identity verifies a token once (`identity.token.verify`, sent
 *   with the SHA-256 of the secret, never the secret) and answers with its
 *   member's profile; a token whose member is deactivated is refused.
 * - Session JWTs: the signature is checked locally (D-11), then `sub` must be
 *   an active member of `wid` (`identity.member.resolve`). The same lookup
 *   resolves a plate assignee, so a member is usable as an assignee the moment
 *   identity created it.
 *
 * Results are cached for TOKEN_CACHE_TTL_MS. Every replica reads
 * `identity.events` in a group of its own: a revoked token and a deactivated
 * member are dropped at once, and a changed member's newer profile replaces
 * the cached one. If that feed is not confirmed live (it has not fetched in
 * the last 2 s), entries older than 4 s are verified again — so a revoked
 * token or a deactivated member is refused by every replica within 5 s (D-10)
 * even when the feed lags.
 *
 * Refusals are cached too (negative cache): a token whose id identity does
 * not know is refused by id, any other refused token by its hash, for one
 * TTL, so replaying a bad token costs no identity round trip. Unknown members
 * are not cached: a member created a moment ago must work at once.
 *
 * A client in use never waits for a re-verification: past half its TTL an
 * entry is still served and re-verified in the background (refresh ahead, ADR
 * 0009), one lookup per key at a time (concurrent requests with an unknown
 * credential share one lookup too). A lookup that was under way when the
 * token's revocation or the member's deactivation arrived is not cached.
 */
@Injectable()
export class ApiTokenVerifier implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Token hash → principal. */
  private readonly tokens = new Map<string, Entry<Principal>>();
  /** `${workspaceId}/${memberId}` → profile. */
  private readonly members = new Map<string, Entry<MemberProfileV1>>();
  /** Refused tokens (`id:<token id>` when no token has that id, else `hash:<sha256>`) → when refused. */
  private readonly refused = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** When this replica last heard of a token's revocation (`t:<id>`) or a member's deactivation (`m:<id>`); kept for one TTL. */
  private readonly revokedAt = new Map<string, number>();
  /** The newest profile the feed announced per member (kept for one TTL): an older lookup answer never wins over it. */
  private readonly announced = new Map<string, { profile: MemberProfileV1; at: number }>();
  private readonly eventHandlers = new Map<string, (body: unknown) => void>();
  private feed?: RunningConsumer;
  private lastFetchAt = 0;
  private readonly lookups: Counter<'outcome'>;

  constructor(
    private readonly commands: CommandClient,
    private readonly kafka: KafkaClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
  ) {
    this.lookups = new Counter({
      name: 'worktrack_api_token_lookups_total',
      help: 'Credential verifications by outcome (cache_hit, verified, rejected, rejected_cached; member_* for JWT members and assignees).',
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
      eachMessage: ({ message }) => {
        const type = readHeaders(message.headers)[Header.type];
        const handler = type === undefined ? undefined : this.eventHandlers.get(type);
        if (handler && message.value) {
          try {
            handler(JSON.parse(message.value.toString('utf8')));
          } catch (err) {
            this.logger.error({ err, type }, 'unreadable identity event');
          }
        }
        if ((type === TokenRevoked.type || type === MemberChanged.type) && message.value) {
          try {
            const body: unknown = JSON.parse(message.value.toString('utf8'));
            if (type === TokenRevoked.type) this.forget(parsePayload(TokenRevoked.payload, body).tokenId);
            else this.memberChanged(parsePayload(MemberChanged.payload, body));
          } catch (err) {
            this.logger.error({ err }, 'unreadable identity event; clearing the credential caches');
            this.tokens.clear();
            this.members.clear();
          }
        }
        return Promise.resolve();
      },
    });
    this.feed.consumer.on(this.feed.consumer.events.FETCH, () => {
      this.lastFetchAt = Date.now();
    });
  }

  /** Other credential caches follow more of `identity.events` through this feed (browser sessions ended, D-40). */
  onIdentityEvent(type: string, handler: (body: unknown) => void): void {
    this.eventHandlers.set(type, handler);
  }

  /** Whether the `identity.events` feed fetched within the last 2 s (caches trust older entries only then). */
  feedLive(): boolean {
    return Date.now() - this.lastFetchAt < FEED_LIVE_MS;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.kafka.stopPrivateConsumer(this.feed, this.feedGroup);
  }

  /** The principal of a `wt_…` token, or UNAUTHENTICATED; UNAVAILABLE when identity does not answer. */
  async verify(token: string): Promise<Principal> {
    const parsed = parseApiToken(token);
    if (!parsed) throw unauthenticated();
    const key = sha256hex(token);
    if (this.isRefused(`id:${parsed.tokenId}`) || this.isRefused(`hash:${key}`)) {
      this.lookups.inc({ outcome: 'rejected_cached' });
      throw unauthenticated();
    }
    const cached = this.tokens.get(key);
    if (cached && this.trust(cached)) {
      this.lookups.inc({ outcome: 'cache_hit' });
      if (Date.now() >= cached.refreshAt) this.background(this.lookupToken(key, parsed.tokenId, parsed.secret));
      return cached.value;
    }
    return this.lookupToken(key, parsed.tokenId, parsed.secret);
  }

  /**
   * Whether `verify` would answer this token from the cache, with no round
   * trip: the bearer of an `Authorization` header value is an API token this
   * replica verified recently and still trusts. Lets the per-address limit of
   * unauthenticated failures skip its Redis call for credentials that are not
   * guesses (issue 17, ADR 0012 decision 17).
   */
  isVerified(authorization: string | string[] | undefined): boolean {
    if (typeof authorization !== 'string') return false;
    const match = BEARER.exec(authorization.trim());
    if (!match || !match[1].startsWith('wt_')) return false;
    const parsed = parseApiToken(match[1]);
    if (!parsed) return false;
    const key = sha256hex(match[1]);
    if (this.isRefused(`id:${parsed.tokenId}`) || this.isRefused(`hash:${key}`)) return false;
    const cached = this.tokens.get(key);
    return cached !== undefined && this.trust(cached);
  }

  /** A session JWT's claims (signature already checked): its member must be an active member of that workspace. */
  async verifyJwt(workspaceId: string, memberId: string): Promise<Principal> {
    const profile = await this.resolveMember(workspaceId, memberId);
    return { memberId: profile.memberId, workspaceId: profile.workspaceId, scope: 'full', credential: 'jwt', profile };
  }

  /** An active member of the workspace (ids compared in canonical lower case), or UNAUTHENTICATED. */
  async resolveMember(workspaceId: string, memberId: string): Promise<MemberProfileV1> {
    const key = `${workspaceId.toLowerCase()}/${memberId.toLowerCase()}`;
    const cached = this.members.get(key);
    if (cached && this.trust(cached)) {
      this.lookups.inc({ outcome: 'member_cache_hit' });
      if (Date.now() >= cached.refreshAt) this.background(this.lookupMember(key));
      return cached.value;
    }
    return this.lookupMember(key);
  }

  /** Drops every cached entry of a token (this replica revoked it, or the feed said so). */
  forget(tokenId: string): void {
    for (const [key, entry] of this.tokens) if (entry.value.tokenId === tokenId) this.tokens.delete(key);
    this.mark(`t:${tokenId}`);
  }

  /**
   * A member changed (the feed, or a change this replica just made): a
   * deactivated member's credentials are dropped and the member is forgotten;
   * otherwise a newer profile replaces the cached one.
   */
  memberChanged(member: MemberV1): void {
    const id = member.memberId;
    if (member.active === false) {
      for (const [key, entry] of this.tokens) if (entry.value.memberId === id) this.tokens.delete(key);
      for (const [key, entry] of this.members) if (entry.value.memberId === id) this.members.delete(key);
      this.mark(`m:${id}`);
      return;
    }
    const profile = toMemberProfile(member);
    const now = Date.now();
    this.prune(now);
    const known = this.announced.get(id);
    if (!known || known.profile.version < profile.version) setBounded(this.announced, id, { profile, at: now });
    for (const [, entry] of this.tokens) {
      const current = entry.value.profile;
      if (entry.value.memberId === id && (!current || current.version < profile.version)) entry.value = { ...entry.value, profile };
    }
    for (const [, entry] of this.members) {
      if (entry.value.memberId === id && entry.value.version < profile.version) entry.value = profile;
    }
  }

  private lookupToken(key: string, tokenId: string, secret: string): Promise<Principal> {
    return this.once(`token:${key}`, async (startedAt) => {
      try {
        const { actor } = await this.commands.send(VerifyToken, { tokenId, secretSha256: sha256hex(secret) }, { key: tokenId });
        const profile = actor.profile ? this.newest(actor.profile) : undefined;
        const principal: Principal = {
          memberId: actor.memberId,
          workspaceId: actor.workspaceId,
          scope: actor.scope,
          credential: 'api_token',
          tokenId,
          ...(profile ? { profile } : {}),
        };
        // A revocation or deactivation that arrived while identity was answering wins over the answer.
        if (!this.markedSince(startedAt, `t:${tokenId}`, `m:${actor.memberId}`)) this.remember(this.tokens, key, principal);
        this.lookups.inc({ outcome: 'verified' });
        return principal;
      } catch (err) {
        if (!isRefusal(err)) throw err;
        this.tokens.delete(key);
        const unknownId = err.details?.some((d) => d.path === 'token_id') ?? false;
        setBounded(this.refused, unknownId ? `id:${tokenId}` : `hash:${key}`, Date.now());
        this.lookups.inc({ outcome: 'rejected' });
        throw unauthenticated(); // identity's details stay here
      }
    });
  }

  private lookupMember(key: string): Promise<MemberProfileV1> {
    return this.once(`member:${key}`, async (startedAt) => {
      const [workspaceId, memberId] = key.split('/');
      try {
        const member = await this.commands.send(ResolveMember, { workspaceId, memberId }, { key: memberId });
        const profile = this.newest(toMemberProfile(member));
        if (!this.markedSince(startedAt, `m:${profile.memberId}`)) this.remember(this.members, key, profile);
        this.lookups.inc({ outcome: 'member_verified' });
        return profile;
      } catch (err) {
        if (!isRefusal(err)) throw err;
        this.members.delete(key);
        this.lookups.inc({ outcome: 'member_rejected' });
        throw unauthenticated();
      }
    });
  }

  /** One lookup per key at a time, shared by concurrent callers. */
  private once<T>(key: string, work: (startedAt: number) => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key) as Promise<T> | undefined;
    if (running) return running;
    const lookup = work(Date.now()).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, lookup);
    return lookup;
  }

  private background(lookup: Promise<unknown>): void {
    lookup.catch((err: unknown) => {
      // Refused: the entry is gone (lookup). Identity away: the entry serves out its TTL.
      if (!(err instanceof DomainError)) this.logger.warn({ err }, 'background credential refresh failed');
    });
  }

  /** The newer of identity's answer and what the feed announced meanwhile. */
  private newest(profile: MemberProfileV1): MemberProfileV1 {
    const known = this.announced.get(profile.memberId);
    return known && known.profile.version > profile.version ? known.profile : profile;
  }

  private isRefused(key: string): boolean {
    const at = this.refused.get(key);
    if (at === undefined) return false;
    if (Date.now() - at < this.config.TOKEN_CACHE_TTL_MS) return true;
    this.refused.delete(key);
    return false;
  }

  private mark(key: string): void {
    const now = Date.now();
    this.revokedAt.set(key, now);
    this.prune(now);
  }

  /** Only lookups younger than the TTL can still be answering: older marks and announcements have no use. */
  private prune(now: number): void {
    const ttl = this.config.TOKEN_CACHE_TTL_MS;
    for (const [id, at] of this.revokedAt) if (now - at > ttl) this.revokedAt.delete(id);
    for (const [id, { at }] of this.announced) if (now - at > ttl) this.announced.delete(id);
  }

  private markedSince(startedAt: number, ...keys: string[]): boolean {
    return keys.some((k) => (this.revokedAt.get(k) ?? -1) >= startedAt);
  }

  private trust(entry: Entry<unknown>): boolean {
    const age = Date.now() - entry.verifiedAt;
    if (age >= this.config.TOKEN_CACHE_TTL_MS) return false;
    return age < UNCONDITIONAL_MS || Date.now() - this.lastFetchAt < FEED_LIVE_MS;
  }

  private remember<V>(cache: Map<string, Entry<V>>, key: string, value: V): void {
    const now = Date.now();
    const ttl = this.config.TOKEN_CACHE_TTL_MS;
    setBounded(cache, key, { value, verifiedAt: now, refreshAt: now + ttl * (REFRESH_FROM + Math.random() * REFRESH_SPREAD) });
  }
}
