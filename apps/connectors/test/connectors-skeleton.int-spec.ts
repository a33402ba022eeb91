import { serviceSkeletonSpec } from '@worktrack/testing';
import { ConnectorsConfig } from '../src/connectors.config';
import { AppModule } from '../src/app.module';
import { connectorsDatabase } from '../src/database/data-source';

serviceSkeletonSpec('connectors', AppModule, ConnectorsConfig, connectorsDatabase);
