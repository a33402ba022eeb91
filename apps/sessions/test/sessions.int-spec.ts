import { serviceSkeletonSpec } from '@worktrack/testing';
import { SessionsConfig } from '../src/sessions.config';
import { sessionsService } from '../src/sessions.service-definition';
import { migratedSessionsSchema } from './migrated-schema';

beforeAll(migratedSessionsSchema);

serviceSkeletonSpec(sessionsService, SessionsConfig);
