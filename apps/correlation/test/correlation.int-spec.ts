import { serviceSkeletonSpec } from '@worktrack/testing';
import { CorrelationConfig } from '../src/correlation.config';
import { CorrelationAppModule } from '../src/app.module';
import { correlationDatabase } from '../src/database/data-source';

serviceSkeletonSpec('correlation', CorrelationAppModule, CorrelationConfig, correlationDatabase);
