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

  async verify(token: string): Promise<SessionJwtClaims> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.keys.resolve, {
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
    if (!isUUID(sub) || !isUUID(wid) || !isUUID(sid)) throw unauthenticated();
    return {
      memberId: sub.toLowerCase(),
      workspaceId: wid.toLowerCase(),
      sid: sid.toLowerCase(),
      amr: Array.isArray(amr) ? amr.filter((m): m is string => typeof m === 'string') : [],
    };
  }
}
