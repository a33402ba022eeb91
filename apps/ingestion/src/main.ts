import { serviceMain } from '@worktrack/platform';
import { IngestionConfig } from './ingestion.config';
import { ingestionService } from './ingestion.service-definition';

serviceMain(ingestionService, IngestionConfig);
