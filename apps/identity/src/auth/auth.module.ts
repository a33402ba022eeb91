import { Module } from '@nestjs/common';
import { IdentityConfig } from '../identity.config';
import { IdentityMembersModule } from '../members/members.module';
import { AuthConsumer } from './auth.consumer';
import { AuthPublisher } from './auth.publisher';
import { AuthRepository } from './auth.repository';
import { BrowserSessionsService } from './browser-sessions.service';
import { InvitesRepository } from './invites.repository';
import { InvitesService } from './invites.service';
import { OidcFlowsRepository } from './oidc/oidc-flows.repository';
import { OidcService } from './oidc/oidc.service';
import { PasswordHasher } from './password-hasher';
import { SecretBox } from '@worktrack/platform';
import { SignInService } from './sign-in.service';
import { SigningKeys } from './signing-keys';
import { TwoFactorPolicyCheck } from './two-factor-policy';
import { TwoFactorService } from './two-factor.service';

/** People's access (D-38 … D-42): passwords, single sign-on, browser sessions and their JWTs, invites, two-factor. */
@Module({
  imports: [IdentityMembersModule],
  controllers: [AuthConsumer],
  providers: [
    {
      provide: SecretBox,
      inject: [IdentityConfig],
      useFactory: (config: IdentityConfig) => new SecretBox(config.IDENTITY_SECRET_KEYS, 'IDENTITY_SECRET_KEYS'),
    },
    AuthRepository,
    AuthPublisher,
    InvitesRepository,
    PasswordHasher,
    SigningKeys,
    TwoFactorPolicyCheck,
    BrowserSessionsService,
    SignInService,
    InvitesService,
    TwoFactorService,
    OidcFlowsRepository,
    OidcService,
  ],
  exports: [InvitesService, BrowserSessionsService],
})
export class IdentityAuthModule {}
