import { serviceSkeletonSpec } from '@worktrack/testing';
import { IdentityConfig } from '../src/identity.config';
import { AppModule } from '../src/app.module';
import { identityDatabase } from '../src/database/data-source';

serviceSkeletonSpec('identity', AppModule, IdentityConfig, identityDatabase);
