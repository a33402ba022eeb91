import { Injectable, type OnModuleInit } from '@nestjs/common';
import { BrowserSessionEnded, CheckBrowserSession, parsePayload, type BrowserSessionStateV1 } from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { GatewayConfig } from '../gateway.config';
import { ApiTokenVerifier } from './api-token.verifier';

interface Entry {
  state: BrowserSessionStateV1;
  verifiedAt: number;
}

/** Trusted without the feed's confirmation for this long (as API tokens: refused within 5 s, D-40). */
const UNCONDITIONAL_MS = 4_000;
/** An ended session is remembered past the longest life of its JWTs (10 minutes), plus clock tolerance. */
const ENDED_KEEP_MS = 11 * 60_000;
const MAX_ENTRIES = 100_000;

/**
 * Whether the browser session (`sid`) of a session JWT is still on (D-40),
 * by the same path as API-token revocation: identity answers once per `sid`
 * (`identity.auth.session.check`), the answer is cached for
 * TOKEN_CACHE_TTL_MS, and `identity.browser-session.ended` on the
 * `identity.events` feed every replica reads drops it at once. While the feed
 * is not confirmed live, entries older than 4 s are checked again — so an
 * ended session is refused by every replica within 5 s.
 */
@Injectable()
export class BrowserSessionVerifier implements OnModuleInit {
  private readonly states = new Map<string, Entry>();
  private readonly ended = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<BrowserSessionStateV1>>();

  constructor(
    private readonly commands: CommandClient,
    private readonly tokens: ApiTokenVerifier,
    private readonly config: GatewayConfig,
  ) {}

  onModuleInit(): void {
    this.tokens.onIdentityEvent(BrowserSessionEnded.type, (body) => this.end(parsePayload(BrowserSessionEnded.payload, body).sid));
  }

  /** The session's state; `active: false` once it ended (or never existed). UNAVAILABLE when identity does not answer. */
  async check(sid: string): Promise<BrowserSessionStateV1> {
    if (this.ended.has(sid)) return { sid, memberId: sid, workspaceId: sid, active: false, twoFactorRequired: false };
    const cached = this.states.get(sid);
    if (cached && this.trust(cached)) return cached.state;
    return this.lookup(sid);
  }

  /** A session ended (the feed, or this replica ended it). */
  end(sid: string): void {
    const now = Date.now();
    this.states.delete(sid);
    this.ended.set(sid, now);
    for (const [id, at] of this.ended) {
      if (now - at <= ENDED_KEEP_MS) break; // insertion order: the rest are younger
      this.ended.delete(id);
    }
  }

  private lookup(sid: string): Promise<BrowserSessionStateV1> {
    const running = this.inFlight.get(sid);
    if (running) return running;
    const startedAt = Date.now();
    const work = this.commands
      .send(CheckBrowserSession, { sid }, { key: sid })
      .then((state) => {
        // An end that arrived while identity answered wins over the answer.
        const endedAt = this.ended.get(sid);
        if (endedAt !== undefined && endedAt >= startedAt) return { ...state, active: false };
        if (this.states.size >= MAX_ENTRIES) {
          const oldest = this.states.keys().next().value;
          if (oldest !== undefined) this.states.delete(oldest);
        }
        this.states.set(sid, { state, verifiedAt: Date.now() });
        return state;
      })
      .finally(() => this.inFlight.delete(sid));
    this.inFlight.set(sid, work);
    return work;
  }

  private trust(entry: Entry): boolean {
    const age = Date.now() - entry.verifiedAt;
    if (age >= this.config.TOKEN_CACHE_TTL_MS) return false;
    return age < UNCONDITIONAL_MS || this.tokens.feedLive();
  }
}
