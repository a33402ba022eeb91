import { serviceSkeletonSpec } from '@worktrack/testing';
import { IngestionConfig } from '../src/ingestion.config';
import { ingestionService } from '../src/ingestion.service-definition';

serviceSkeletonSpec(ingestionService, IngestionConfig);
