import { serviceSkeletonSpec } from '@worktrack/testing';
import { ConnectorsConfig } from '../src/connectors.config';
import { ConnectorsAppModule } from '../src/app.module';
import { connectorsDatabase } from '../src/database/data-source';

serviceSkeletonSpec('connectors', ConnectorsAppModule, ConnectorsConfig, connectorsDatabase);
