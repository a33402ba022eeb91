import { serviceSkeletonSpec } from '@worktrack/testing';
import { SessionsConfig } from '../src/sessions.config';
import { SessionsAppModule } from '../src/app.module';
import { sessionsDatabase } from '../src/database/data-source';
import { migratedSessionsSchema } from './migrated-schema';

beforeAll(migratedSessionsSchema);

serviceSkeletonSpec('sessions', SessionsAppModule, SessionsConfig, sessionsDatabase);
