import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { finalize, type Observable } from 'rxjs';
import { withLogContext } from '../logging/logger';
import { Metrics } from '../metrics/metrics';
import { ContractContext } from './contract.context';

/**
 * Every log line of a handler carries the message's request id and message
 * id, and its handling time goes to `worktrack_kafka_handle_duration_seconds`.
 */
@Injectable()
export class MessageContextInterceptor implements NestInterceptor {
  constructor(private readonly metrics: Metrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = context.switchToRpc().getContext<unknown>();
    if (!(ctx instanceof ContractContext)) return next.handle();
    const { meta } = ctx;
    const stopTimer = this.metrics.kafkaHandleDuration.startTimer({ topic: meta.topic, type: meta.type });
    // next.handle() binds the handler to the async context it is called in.
    return withLogContext({ requestId: meta.requestId, messageId: meta.messageId }, () => next.handle()).pipe(finalize(() => stopTimer()));
  }
}
