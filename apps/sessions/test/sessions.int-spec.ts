import { serviceSkeletonSpec } from '@worktrack/testing';
import { SessionsConfig } from '../src/sessions.config';
import { AppModule } from '../src/app.module';
import { sessionsDatabase } from '../src/database/data-source';
import { migratedSessionsSchema } from './migrated-schema';

beforeAll(migratedSessionsSchema);

serviceSkeletonSpec('sessions', AppModule, SessionsConfig, sessionsDatabase);
