import { serviceSkeletonSpec } from '@worktrack/testing';
import { IdentityConfig } from '../src/identity.config';
import { identityService } from '../src/identity.service-definition';

serviceSkeletonSpec(identityService, IdentityConfig);
