import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';

/** Answers that carry member or system data: the API and the operator status. */
const PRIVATE = /^\/(v1\/|status$)/;

/**
 * Issue 14: member data must not be kept by browsers, proxies or CDNs.
 * Every /v1 answer (and /status) carries `Cache-Control: no-store`, set
 * before the handler runs so the handler's own errors carry it too.
 */
@Injectable()
export class NoStoreInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const http = context.switchToHttp();
      if (PRIVATE.test(http.getRequest<FastifyRequest>().routeOptions.url ?? '')) {
        void http.getResponse<FastifyReply>().header('Cache-Control', 'no-store');
      }
    }
    return next.handle();
  }
}
