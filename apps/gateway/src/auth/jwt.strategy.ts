import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { isUUID } from 'class-validator';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { GatewayConfig } from '../gateway.config';
import type { Principal } from './principal';

interface SessionClaims {
  sub?: unknown;
  wid?: unknown;
  exp?: unknown;
}

/**
 * D-11: session JWTs a deployment mints itself, verified locally (no round
 * trip); worktrack's own (ES256 with `kid`, D-40) go through
 * SessionJwtVerifier instead. HS256 with JWT_SECRET,
 * or RS256 with JWT_PUBLIC_KEY when set. `sub` = member id, `wid` = workspace
 * id, `exp` required; anything else is a 401. A valid signature is not
 * enough: the auth guard then resolves the claims to an active member of that
 * workspace (issue 14).
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(config: GatewayConfig) {
    const rs256 = config.JWT_PUBLIC_KEY !== '';
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: rs256 ? config.JWT_PUBLIC_KEY : config.JWT_SECRET,
      algorithms: rs256 ? ['RS256'] : ['HS256'],
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: 5 },
    });
  }

  validate(claims: SessionClaims): Principal | false {
    const { sub, wid, exp } = claims;
    if (typeof exp !== 'number' || typeof sub !== 'string' || typeof wid !== 'string' || !isUUID(sub) || !isUUID(wid)) return false;
    // Canonical lower case: the ids identity stores, the rate-limit key, every service's keys (issue 14).
    return { memberId: sub.toLowerCase(), workspaceId: wid.toLowerCase(), scope: 'full', credential: 'jwt' };
  }
}
