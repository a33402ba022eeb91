import { CommandClientModule } from '@worktrack/platform';
import { ConnectorsConfig } from '../connectors.config';

/**
 * The connectors service's CommandClient (ADR 0002), with replies on
 * `connectors.replies`: it asks identity for credentials and sends ingestion
 * the same IngestEvents command the gateway sends for POST /activity/events.
 */
export const ConnectorsRpcModule = CommandClientModule.register({
  config: ConnectorsConfig,
  timeoutMs: (config) => config.COMMAND_TIMEOUT_MS,
  replies: 'connectorsReplies',
});
