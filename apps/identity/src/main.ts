import { serviceMain } from '@worktrack/platform';
import { IdentityConfig } from './identity.config';
import { identityService } from './identity.service-definition';

serviceMain(identityService, IdentityConfig);
