import { serviceSkeletonSpec } from '@worktrack/testing';
import { ConnectorsConfig } from '../src/connectors.config';
import { connectorsService } from '../src/connectors.service-definition';

serviceSkeletonSpec(connectorsService, ConnectorsConfig);
