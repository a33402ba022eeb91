import { serviceMain } from '@worktrack/platform';
import { SessionsConfig } from './sessions.config';
import { sessionsService } from './sessions.service-definition';

serviceMain(sessionsService, SessionsConfig);
