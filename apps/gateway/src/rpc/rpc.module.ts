import { CommandClientModule } from '@worktrack/platform';
import { GatewayConfig } from '../gateway.config';

/** The gateway's CommandClient (request/reply over Kafka, ADR 0002): replies on `gateway.replies`, REQUEST_TIMEOUT_MS per request. */
export const RpcModule = CommandClientModule.register({
  config: GatewayConfig,
  timeoutMs: (config) => config.REQUEST_TIMEOUT_MS,
  replies: 'gatewayReplies',
  // Every command is built from a request the DTO pipe and the use case validated;
  // the service validates it again on receipt (a mismatch is a 500 either way).
  validateCommands: false,
});
