import { serviceSkeletonSpec } from '@worktrack/testing';
import { IngestionConfig } from '../src/ingestion.config';
import { IngestionAppModule } from '../src/app.module';
import { ingestionDatabase } from '../src/database/data-source';

serviceSkeletonSpec('ingestion', IngestionAppModule, IngestionConfig, ingestionDatabase);
