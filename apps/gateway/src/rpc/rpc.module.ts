import { CommandClientModule } from '@worktrack/platform';
import { GatewayConfig } from '../gateway.config';

/** The gateway's CommandClient (request/reply over Kafka, ADR 0002): replies on `gateway.replies`, REQUEST_TIMEOUT_MS per request. */
export const RpcModule = CommandClientModule.register({
  config: GatewayConfig,
  timeoutMs: (config) => config.REQUEST_TIMEOUT_MS,
  replies: 'gatewayReplies',
});
