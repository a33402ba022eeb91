import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { importJWK, type JWTHeaderParameters } from 'jose';
import { GetSigningKeys, type PublicJwkV1 } from '@worktrack/contracts';
import { type AppLogger, CommandClient, LOGGER, WorkLoop } from '@worktrack/platform';
import { GatewayConfig } from '../gateway.config';
import { unauthenticated } from './auth.errors';

type VerifyKey = Awaited<ReturnType<typeof importJWK>>;

/** A `kid` this replica does not know makes it ask identity again, at most this often. */
const UNKNOWN_KID_REFETCH_MS = 5_000;
/** The key set is refreshed in the background this often (a new key is announced before it signs). */
const REFRESH_MS = 5 * 60_000;

/**
 * The public keys of worktrack's session JWTs (D-40), from identity
 * (`identity.auth.signing-keys.get`), held by every gateway replica: tokens
 * are verified locally by `kid` (no round trip per request), and the same set
 * is served at `GET /.well-known/jwks.json`. A token naming a `kid` not in
 * the set makes the replica fetch the set again (rate-limited), so a key that
 * identity starts signing with is picked up at once; keys that leave the set
 * stop verifying.
 */
@Injectable()
export class SessionKeys implements OnApplicationBootstrap, OnModuleDestroy {
  private keys: PublicJwkV1[] = [];
  private readonly imported = new Map<string, VerifyKey>();
  private fetchedAt = 0;
  private fetching?: Promise<void>;
  private readonly refresh: WorkLoop;

  constructor(
    private readonly commands: CommandClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    // A refresh that fails is tried again at the next interval; a token naming an unknown `kid` fetches sooner.
    this.refresh = new WorkLoop({ name: 'session-keys', intervalMs: REFRESH_MS, logger }, async () => {
      await this.fetch('refresh').catch(() => undefined);
      return false;
    });
  }

  /** Fetches the set at start when identity answers; a gateway starts without it (the first token fetches it). */
  onApplicationBootstrap(): void {
    void this.fetch('start').catch((err: unknown) =>
      this.logger.warn({ err }, 'session-JWT keys not fetched at start; fetched on first use'),
    );
    this.refresh.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.refresh.stop();
  }

  /** The RFC 7517 key set (public keys only). */
  async jwks(): Promise<{ keys: PublicJwkV1[] }> {
    if (this.keys.length === 0) await this.fetch('jwks');
    return { keys: this.keys };
  }

  /** Whether the set holds the key `kid` names (a key that left it verifies nothing more). */
  has(kid: string): boolean {
    return this.imported.has(kid);
  }

  /** jose's key resolver: the key a token's `kid` names, or UNAUTHENTICATED. */
  readonly resolve = async (header: JWTHeaderParameters): Promise<VerifyKey> => {
    const kid = header.kid;
    if (typeof kid !== 'string' || header.alg !== 'ES256') throw unauthenticated();
    let key = this.imported.get(kid);
    if (!key && Date.now() - this.fetchedAt >= UNKNOWN_KID_REFETCH_MS) {
      await this.fetch('unknown kid');
      key = this.imported.get(kid);
    }
    if (!key) throw unauthenticated();
    return key;
  };

  private fetch(reason: string): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const { keys, issuer } = await this.commands.send(GetSigningKeys, { reason }, { key: 'signing-keys' });
        const imported = new Map<string, VerifyKey>();
        for (const jwk of keys) imported.set(jwk.kid, await importJWK({ ...jwk }, 'ES256'));
        this.keys = keys;
        this.imported.clear();
        for (const [kid, key] of imported) this.imported.set(kid, key);
        if (issuer !== this.config.PUBLIC_URL) {
          this.logger.warn(
            { issuer, expected: this.config.PUBLIC_URL },
            'identity signs session JWTs for another PUBLIC_URL: they will be refused',
          );
        }
      } finally {
        this.fetchedAt = Date.now();
        this.fetching = undefined;
      }
    })();
    return this.fetching;
  }
}
