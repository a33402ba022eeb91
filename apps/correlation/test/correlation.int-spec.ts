import { serviceSkeletonSpec } from '@worktrack/testing';
import { CorrelationConfig } from '../src/correlation.config';
import { correlationService } from '../src/correlation.service-definition';

serviceSkeletonSpec(correlationService, CorrelationConfig);
