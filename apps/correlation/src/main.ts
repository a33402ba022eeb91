import { serviceMain } from '@worktrack/platform';
import { CorrelationConfig } from './correlation.config';
import { correlationService } from './correlation.service-definition';

serviceMain(correlationService, CorrelationConfig);
