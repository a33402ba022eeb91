import { serviceSkeletonSpec } from '@worktrack/testing';
import { IdentityConfig } from '../src/identity.config';
import { IdentityAppModule } from '../src/app.module';
import { identityDatabase } from '../src/database/data-source';

serviceSkeletonSpec('identity', IdentityAppModule, IdentityConfig, identityDatabase);
