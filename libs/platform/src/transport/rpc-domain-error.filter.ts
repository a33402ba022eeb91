import { Catch, Inject, Injectable, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { throwError, type Observable } from 'rxjs';
import { ErrorCode, type ErrorBody } from '@worktrack/contracts';
import { isDomainError } from '../errors/domain-error';
import { isTransientInfrastructureError, TRANSIENT_MESSAGE } from '../errors/transient';
import type { AppLogger } from '../logging/logger';
import { LOGGER } from '../nest/tokens';
import { ContractContext } from './contract.context';

/** The D-2 body of an unexpected failure: the request id to quote, nothing of the cause. */
export const internalErrorBody = (requestId: string | undefined): ErrorBody => ({
  code: ErrorCode.INTERNAL,
  message: `Internal error (request id ${requestId ?? 'none'}).`,
});

/**
 * Commands: a DomainError becomes an RpcException carrying its D-2 body
 * (code, message, details), a dependency briefly down (a terminated Postgres
 * connection, a lost broker leader) UNAVAILABLE, anything else an INTERNAL body with the request
 * id (the cause only in this service's log). Events: the error is passed on
 * as it is, so that the transport can tell a permanent failure (dead-letter
 * at once) from one worth retrying.
 */
@Catch()
@Injectable()
export class RpcDomainErrorFilter implements RpcExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    const ctx = host.switchToRpc().getContext<unknown>();
    if (!(ctx instanceof ContractContext) || ctx.kind === 'event') return throwError(() => exception);
    if (exception instanceof RpcException) return throwError(() => exception);
    if (isDomainError(exception)) return throwError(() => new RpcException(exception.toBody()));
    if (isTransientInfrastructureError(exception)) {
      this.logger.warn({ err: exception, type: ctx.meta.type }, 'command failed on a dependency; answered UNAVAILABLE');
      return throwError(() => new RpcException({ code: ErrorCode.UNAVAILABLE, message: TRANSIENT_MESSAGE } satisfies ErrorBody));
    }
    this.logger.error({ err: exception, type: ctx.meta.type }, 'command failed');
    return throwError(() => new RpcException(internalErrorBody(ctx.meta.requestId)));
  }
}
