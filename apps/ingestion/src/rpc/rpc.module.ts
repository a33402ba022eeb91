import { CommandClientModule } from '@worktrack/platform';
import { IngestionConfig } from '../ingestion.config';

/**
 * Ingestion's CommandClient (ADR 0002), with replies on `ingestion.replies`:
 * its link audit asks correlation for the sessions covering the events it
 * judges (ADR 0016).
 */
export const IngestionRpcModule = CommandClientModule.register({
  config: IngestionConfig,
  timeoutMs: () => 10_000,
  replies: 'ingestionReplies',
});
