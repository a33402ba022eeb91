import { serviceMain } from '@worktrack/platform';
import { ConnectorsConfig } from './connectors.config';
import { connectorsService } from './connectors.service-definition';

serviceMain(connectorsService, ConnectorsConfig);
