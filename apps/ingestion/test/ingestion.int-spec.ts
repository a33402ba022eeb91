import { serviceSkeletonSpec } from '@worktrack/testing';
import { IngestionConfig } from '../src/ingestion.config';
import { AppModule } from '../src/app.module';
import { ingestionDatabase } from '../src/database/data-source';

serviceSkeletonSpec('ingestion', AppModule, IngestionConfig, ingestionDatabase);
