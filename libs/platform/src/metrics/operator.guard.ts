import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ErrorCode } from '@worktrack/contracts';
import { AppConfig } from '../config/base.config';
import { DomainError } from '../errors/domain-error';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Whether `header` is `Bearer <expected>`, compared in constant time (over digests, so lengths do not leak either). */
export function isOperatorCredential(header: string | string[] | undefined, expected: string): boolean {
  if (expected === '' || typeof header !== 'string') return false;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match !== null && timingSafeEqual(digest(match[1]), digest(expected));
}

/**
 * Operator endpoints (/metrics, the gateway's /status): with OPERATOR_TOKEN
 * set they answer only to that bearer, anything else is 401 UNAUTHENTICATED
 * in the D-1 envelope. Without it (development) they stay open.
 */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.config.OPERATOR_TOKEN === '') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (isOperatorCredential(request.headers.authorization, this.config.OPERATOR_TOKEN)) return true;
    throw new DomainError(ErrorCode.UNAUTHENTICATED, 'This endpoint needs the operator credential.');
  }
}
