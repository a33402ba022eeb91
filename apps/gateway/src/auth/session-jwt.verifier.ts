import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { GatewayConfig } from '../gateway.config';
import { unauthenticated } from './auth.errors';
import { SessionKeys } from './session-keys';

/** What a verified worktrack session JWT says (D-40); ids in canonical lower case. */
export interface SessionJwtClaims {
  memberId: string;
  workspaceId: string;
  sid: string;
  amr: string[];
}

/** D-40: at most 10 minutes, plus the clock tolerance. */
const MAX_AGE_SECONDS = 600;
const CLOCK_TOLERANCE_SECONDS = 5;
/** Verified tokens remembered per replica: a browser presents the same JWT on every request of its 10 minutes. */
const VERIFIED_CAPACITY = 10_000;

/** Whether a bearer is one of worktrack's own session JWTs (ES256, named by `kid`); others go the D-11 way. */
export function isWorktrackJwt(token: string): boolean {
  try {
    const header = decodeProtectedHeader(token);
    return header.alg === 'ES256' && typeof header.kid === 'string';
  } catch {
    return false;
  }
}

/**
 * Verifies worktrack's session JWTs locally (D-40): ES256 only, the key its
 * `kid` names in identity's set, `iss` = PUBLIC_URL, `aud` = PUBLIC_URL/v1,
 * `exp` and `iat` required and at most 10 minutes apart, `sub`, `wid`, `sid`
 * UUIDs. Anything else is a 401 (no algorithm but ES256 reaches a key).
 */
@Injectable()
export class SessionJwtVerifier {
  constructor(
    private readonly keys: SessionKeys,
    private readonly config: GatewayConfig,
  ) {}

  /**
   * Tokens that passed every check, until their `exp` (plus the tolerance)
   * and while the key that signed them is in the set: the same string
   * verifies the same way again, so a repeat costs a lookup, not an ES256
   * verification. The session behind it is still checked on every request
   * (revocation, D-40). Oldest first out when full.
   */
  private readonly verified = new Map<string, { claims: SessionJwtClaims; kid: string; untilMs: number }>();

  async verify(token: string): Promise<SessionJwtClaims> {
    const known = this.verified.get(token);
    if (known) {
      if (Date.now() < known.untilMs && this.keys.has(known.kid)) return known.claims;
      this.verified.delete(token);
    }
    const { claims, kid, exp } = await this.verifyAnew(token);
    if (this.verified.size >= VERIFIED_CAPACITY) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { claims, kid, untilMs: (exp + CLOCK_TOLERANCE_SECONDS) * 1000 });
    return claims;
  }

  private async verifyAnew(token: string): Promise<{ claims: SessionJwtClaims; kid: string; exp: number }> {
    let payload: Record<string, unknown>;
    let kid: unknown;
    try {
      ({
        payload,
        protectedHeader: { kid },
      } = await jwtVerify(token, this.keys.resolve, {
        algorithms: ['ES256'],
        issuer: this.config.PUBLIC_URL,
        audience: `${this.config.PUBLIC_URL}/v1`,
        requiredClaims: ['exp', 'iat', 'sub', 'wid', 'sid'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        maxTokenAge: MAX_AGE_SECONDS + CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (err) {
      // Identity away while fetching a new key: 503, not a refusal.
      if (err instanceof DomainError && err.code !== ErrorCode.UNAUTHENTICATED) throw err;
      throw unauthenticated();
    }
    const { sub, wid, sid, amr, exp, iat } = payload;
    if (typeof exp !== 'number' || typeof iat !== 'number' || exp - iat > MAX_AGE_SECONDS) throw unauthenticated();
    if (typeof sub !== 'string' || typeof wid !== 'string' || typeof sid !== 'string') throw unauthenticated();
    if (!isUUID(sub) || !isUUID(wid) || !isUUID(sid) || typeof kid !== 'string') throw unauthenticated();
    const claims: SessionJwtClaims = {
      memberId: sub.toLowerCase(),
      workspaceId: wid.toLowerCase(),
      sid: sid.toLowerCase(),
      amr: Array.isArray(amr) ? amr.filter((m): m is string => typeof m === 'string') : [],
    };
    return { claims, kid, exp };
  }
}
