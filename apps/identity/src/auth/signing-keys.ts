import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { DataSource } from 'typeorm';
import type { AuthMethod, PublicJwkV1 } from '@worktrack/contracts';
import { type AppLogger, LOGGER } from '@worktrack/platform';
import { IdentityConfig } from '../identity.config';
import { SigningKeyEntity } from './entities/signing-key.entity';
import { SecretBox } from '@worktrack/platform';

type PrivateKey = Awaited<ReturnType<typeof importJWK>>;

interface RingKey {
  kid: string;
  key: PrivateKey;
  publicJwk: PublicJwkV1;
}

/** What a session JWT says (D-40). */
export interface SessionClaims {
  memberId: string;
  workspaceId: string;
  sid: string;
  amr: AuthMethod[];
}

/** The public half of an EC private JWK, as RFC 7517 publishes it. */
export function publicJwkOf(jwk: JWK, kid: string): PublicJwkV1 {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) throw new Error(`signing key ${kid} is not an EC P-256 JWK`);
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid, alg: 'ES256', use: 'sig' };
}

/**
 * The session JWTs' key ring (D-40): ES256 keys named by `kid`. From
 * SESSION_SIGNING_KEYS when set (first signs, all are published); else the
 * keys identity generated and sealed in its schema — the newest signs, so
 * every replica (and a restart) agrees.
 */
@Injectable()
export class SigningKeys implements OnModuleInit {
  private ring: RingKey[] = [];

  constructor(
    private readonly config: IdentityConfig,
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  get issuer(): string {
    return this.config.PUBLIC_URL;
  }

  get audience(): string {
    return `${this.config.PUBLIC_URL}/v1`;
  }

  async onModuleInit(): Promise<void> {
    this.ring = this.config.SESSION_SIGNING_KEYS.trim() !== '' ? await this.fromEnv() : await this.fromSchema();
  }

  /** Every public key, the signing one first. */
  publicKeys(): PublicJwkV1[] {
    return this.ring.map((k) => k.publicJwk);
  }

  async sign(claims: SessionClaims, now = Date.now()): Promise<{ token: string; expiresIn: number }> {
    const signer = this.ring[0];
    if (!signer) throw new Error('no signing key');
    const iat = Math.floor(now / 1000);
    const expiresIn = this.config.SESSION_TOKEN_TTL_SECONDS;
    const token = await new SignJWT({ wid: claims.workspaceId, sid: claims.sid, amr: claims.amr })
      .setProtectedHeader({ alg: 'ES256', kid: signer.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setSubject(claims.memberId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + expiresIn)
      .sign(signer.key);
    return { token, expiresIn };
  }

  private async fromEnv(): Promise<RingKey[]> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.config.SESSION_SIGNING_KEYS);
    } catch {
      throw new Error('SESSION_SIGNING_KEYS must be a JSON array of private EC P-256 JWKs');
    }
    if (!Array.isArray(parsed) || parsed.length === 0) throw new Error('SESSION_SIGNING_KEYS must be a non-empty JSON array');
    return Promise.all((parsed as JWK[]).map((jwk) => this.load(jwk)));
  }

  private async fromSchema(): Promise<RingKey[]> {
    const repo = this.dataSource.getRepository(SigningKeyEntity);
    // One key for every replica: the first to take the lock generates it, the others find it.
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('identity.signing_keys'))`);
      if ((await manager.count(SigningKeyEntity)) > 0) return;
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const kid = `gen-${randomBytes(6).toString('hex')}`;
      const jwk = { ...(await exportJWK(privateKey)), kid };
      await manager.insert(SigningKeyEntity, { kid, privateJwk: this.box.seal(JSON.stringify(jwk)) });
      this.logger.warn({ kid }, 'SESSION_SIGNING_KEYS is empty: generated a session-JWT signing key (development and tests only)');
    });
    const rows = await repo.find({ order: { createdAt: 'DESC', kid: 'ASC' } });
    return Promise.all(rows.map((row) => this.load(JSON.parse(this.box.open(row.privateJwk)) as JWK)));
  }

  private async load(jwk: JWK): Promise<RingKey> {
    const kid = jwk.kid;
    if (typeof kid !== 'string' || kid === '' || !jwk.d) throw new Error('every signing key needs a kid and its private part');
    const key = await importJWK(jwk, 'ES256');
    return { kid, key, publicJwk: publicJwkOf(jwk, kid) };
  }
}
