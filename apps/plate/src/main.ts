import { serviceMain } from '@worktrack/platform';
import { PlateConfig } from './plate.config';
import { plateService } from './plate.service-definition';

serviceMain(plateService, PlateConfig);
