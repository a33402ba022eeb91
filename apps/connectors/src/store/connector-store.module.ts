import { Module } from '@nestjs/common';
import { ConnectorsConfig } from '../connectors.config';
import { SecretBox } from '@worktrack/platform';
import { ConnectorsRepository } from './connectors.repository';

/** The connector store: configurations and their secrets, encrypted at rest (D-36). Every other feature builds on it. */
@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [ConnectorsConfig],
      useFactory: (config: ConnectorsConfig) => new SecretBox(config.CONNECTOR_SECRET_KEYS, 'CONNECTOR_SECRET_KEYS'),
    },
    ConnectorsRepository,
  ],
  exports: [SecretBox, ConnectorsRepository],
})
export class ConnectorStoreModule {}
