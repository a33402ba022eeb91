import { serviceSkeletonSpec } from '@worktrack/testing';
import { SessionsConfig } from '../src/sessions.config';
import { sessionsService } from '../src/sessions.service-definition';

serviceSkeletonSpec(sessionsService, SessionsConfig);
