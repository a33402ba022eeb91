import { BrowserSessionEntity } from '../auth/entities/browser-session.entity';
import { CredentialEntity } from '../auth/entities/credential.entity';
import { OidcFlowEntity } from '../auth/entities/oidc-flow.entity';
import { InviteEntity } from '../auth/entities/invite.entity';
import { RecoveryCodeEntity } from '../auth/entities/recovery-code.entity';
import { RefreshSecretEntity } from '../auth/entities/refresh-secret.entity';
import { SignInFailureEntity } from '../auth/entities/sign-in-failure.entity';
import { SigningKeyEntity } from '../auth/entities/signing-key.entity';
import { IdentityMemberEntity } from '../members/entities/member.entity';
import { WorkspaceEntity } from '../members/entities/workspace.entity';
import { ApiTokenEntity } from '../tokens/entities/api-token.entity';
import { IdentityInit1763750000000 } from './migrations/1763750000000-IdentityInit';
import { IdentityMembersAndTokens1763760000000 } from './migrations/1763760000000-IdentityMembersAndTokens';
import { IdentityOutbox1763760000001 } from './migrations/1763760000001-IdentityOutbox';
import { IdentityMemberVersions1764000000000 } from './migrations/1764000000000-IdentityMemberVersions';
import { IdentityPeopleAccess1764300000000 } from './migrations/1764300000000-IdentityPeopleAccess';
import { IdentityTokenStates1766000000000 } from './migrations/1766000000000-IdentityTokenStates';
import { IdentityOidcFlows1766500000000 } from './migrations/1766500000000-IdentityOidcFlows';
import { IdentityOutboxTraceparent1767000000000 } from './migrations/1767000000000-IdentityOutboxTraceparent';
import { IdentityOutboxLz41767100000000 } from './migrations/1767100000000-IdentityOutboxLz4';

/** The identity service owns exactly this Postgres schema. */
export const identityDatabase = {
  schema: 'identity',
  entities: [
    WorkspaceEntity,
    IdentityMemberEntity,
    ApiTokenEntity,
    CredentialEntity,
    BrowserSessionEntity,
    RefreshSecretEntity,
    InviteEntity,
    RecoveryCodeEntity,
    SigningKeyEntity,
    SignInFailureEntity,
    OidcFlowEntity,
  ],
  migrations: [
    IdentityInit1763750000000,
    IdentityMembersAndTokens1763760000000,
    IdentityOutbox1763760000001,
    IdentityMemberVersions1764000000000,
    IdentityPeopleAccess1764300000000,
    IdentityTokenStates1766000000000,
    IdentityOidcFlows1766500000000,
    IdentityOutboxTraceparent1767000000000,
    IdentityOutboxLz41767100000000,
  ],
};
