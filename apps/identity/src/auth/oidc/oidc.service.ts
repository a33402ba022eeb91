import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import type { FinishOidcSignInV1, OidcRedirectV1, OidcSignedInV1, SignInMethodsV1, StartOidcSignInV1 } from '@worktrack/contracts';
import { type AppLogger, DomainError, LOGGER, SecretBox } from '@worktrack/platform';
import { IdentityConfig } from '../../identity.config';
import { DEFAULT_PLATE_CAPACITY, DEFAULT_WORKING_HOURS, toMemberV1 } from '../../members/member.mapper';
import { MembersPublisher } from '../../members/members.publisher';
import { IdentityMembersRepository } from '../../members/members.repository';
import { BrowserSessionsService } from '../browser-sessions.service';
import { OidcFlowsRepository } from './oidc-flows.repository';
import { parseOidcProviders, sameOriginPath, type OidcProviderConfig } from './oidc-providers';
import {
  answerNotVerified,
  codeRefused,
  emailMissing,
  emailNotVerified,
  flowNotFound,
  foreignDomain,
  memberDeactivated,
  noSuchMember,
  providerDeclined,
  providerUnreachable,
  stateMismatch,
  unknownProvider,
} from './oidc.errors';

/** How long a started sign-in may take at the provider (the binding cookie's Max-Age). */
export const OIDC_FLOW_SECONDS = 600;
/** Discovery and the token call give up after this long: the page says the provider cannot be reached. */
const PROVIDER_TIMEOUT_SECONDS = 10;

/** The claims a sign-in reads, from the ID token or else from the userinfo endpoint. */
interface PersonClaims {
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
}

/**
 * D-41: single sign-on with OpenID Connect (authorization code, PKCE S256,
 * state and nonce), several providers at once. A provider is discovered
 * when a sign-in with it first starts and then cached; one that cannot be
 * reached fails that sign-in only (and is asked again next time).
 */
@Injectable()
export class OidcService {
  private readonly providers: Map<string, OidcProviderConfig>;
  private readonly discovered = new Map<string, Promise<oidc.Configuration>>();

  constructor(
    private readonly flows: OidcFlowsRepository,
    private readonly members: IdentityMembersRepository,
    private readonly membersPublisher: MembersPublisher,
    private readonly sessions: BrowserSessionsService,
    private readonly box: SecretBox,
    private readonly config: IdentityConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    const { providers } = parseOidcProviders(config.OIDC_PROVIDERS, config.NODE_ENV === 'production');
    this.providers = new Map(providers.map((p) => [p.id, p]));
  }

  methods(): SignInMethodsV1 {
    return { providers: [...this.providers.values()].map(({ id, name }) => ({ id, name })), passwordLogin: this.config.PASSWORD_LOGIN };
  }

  redirectUri(providerId: string): string {
    return `${this.config.PUBLIC_URL}/v1/auth/oidc/${providerId}/callback`;
  }

  async start(command: StartOidcSignInV1): Promise<OidcRedirectV1> {
    const provider = this.provider(command.provider);
    const client = await this.client(provider);
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    await this.flows.put({
      bindingHash: Buffer.from(command.bindingSha256, 'hex'),
      provider: provider.id,
      state,
      nonce,
      codeVerifier: this.box.seal(codeVerifier),
      returnTo: sameOriginPath(command.returnTo, this.config.PUBLIC_URL),
      expiresAt: new Date(Date.now() + OIDC_FLOW_SECONDS * 1000),
    });
    const url = oidc.buildAuthorizationUrl(client, {
      redirect_uri: this.redirectUri(provider.id),
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { authorizationUrl: url.href, expiresIn: OIDC_FLOW_SECONDS };
  }

  async finish(command: FinishOidcSignInV1): Promise<OidcSignedInV1> {
    const provider = this.provider(command.provider);
    // The flow is taken whatever happens next: a state, and the code sent with it, work once.
    const flow = command.bindingSha256 ? await this.flows.take(Buffer.from(command.bindingSha256, 'hex')) : null;
    if (!flow || flow.provider !== provider.id || flow.expiresAt.getTime() <= Date.now()) throw flowNotFound();
    const query = new URLSearchParams(command.callbackQuery);
    const error = query.get('error');
    if (error !== null) throw providerDeclined(/^[A-Za-z0-9_.-]{1,64}$/.test(error) ? error : 'an error');
    if (query.get('state') !== flow.state) throw stateMismatch();
    const client = await this.client(provider);
    const callback = new URL(this.redirectUri(provider.id));
    callback.search = query.toString();
    let claims: PersonClaims;
    try {
      const tokens = await oidc.authorizationCodeGrant(client, callback, {
        pkceCodeVerifier: this.box.open(flow.codeVerifier),
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw answerNotVerified();
      claims = idClaims as PersonClaims;
      if (claims.email === undefined || claims.email_verified === undefined) {
        claims = { ...(await oidc.fetchUserInfo(client, tokens.access_token, idClaims.sub)), ...stripUndefined(idClaims) };
      }
    } catch (err) {
      throw this.refusal(err, provider);
    }
    return this.signIn(provider, claims, flow.returnTo, command);
  }

  private async signIn(
    provider: OidcProviderConfig,
    claims: PersonClaims,
    returnTo: string,
    command: FinishOidcSignInV1,
  ): Promise<OidcSignedInV1> {
    if (typeof claims.email !== 'string' || !claims.email.includes('@')) throw emailMissing();
    if (claims.email_verified !== true && claims.email_verified !== 'true') throw emailNotVerified();
    const email = claims.email.trim().toLowerCase();
    const domain = email.slice(email.lastIndexOf('@') + 1);
    if (provider.allowed_email_domains.length > 0 && !provider.allowed_email_domains.includes(domain)) throw foreignDomain(domain);
    const signedIn = await this.members.transaction(async (manager) => {
      const workspace = await this.members.upsertWorkspace(manager, randomUUID(), provider.workspace);
      let member = await this.members.findByEmail(manager, workspace.id, email);
      if (member?.deactivatedAt) throw memberDeactivated();
      if (member && member.kind !== 'human') throw noSuchMember();
      if (!member) {
        if (!provider.allow_signup) throw noSuchMember();
        // D-14: the first member of a workspace owns it.
        const first = (await this.members.countInWorkspace(manager, workspace.id)) === 0;
        const name = typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim().slice(0, 200) : email.split('@')[0];
        member = await this.members.insertMember(manager, {
          id: randomUUID(),
          workspaceId: workspace.id,
          kind: 'human',
          role: first ? 'owner' : 'member',
          displayName: name,
          email,
          timezone: 'UTC',
          workingHours: DEFAULT_WORKING_HOURS,
          plateCapacity: DEFAULT_PLATE_CAPACITY,
          createdBy: null,
        });
        await this.membersPublisher.changed(manager, toMemberV1(member));
      }
      return this.sessions.open(manager, member, ['sso'], command.refreshSha256, command.userAgent);
    });
    return { signedIn, returnTo };
  }

  private provider(id: string): OidcProviderConfig {
    const provider = this.providers.get(id);
    if (!provider) throw unknownProvider(id);
    return provider;
  }

  /** The provider's discovered configuration; a failed discovery is forgotten, so the next sign-in asks again. */
  private async client(provider: OidcProviderConfig): Promise<oidc.Configuration> {
    let pending = this.discovered.get(provider.id);
    if (!pending) {
      const insecure = new URL(provider.issuer).protocol === 'http:';
      pending = oidc.discovery(new URL(provider.issuer), provider.client_id, undefined, oidc.ClientSecretBasic(provider.client_secret), {
        timeout: PROVIDER_TIMEOUT_SECONDS,
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
      this.discovered.set(provider.id, pending);
      pending.catch(() => this.discovered.delete(provider.id));
    }
    try {
      return await pending;
    } catch (err) {
      this.logger.warn({ provider: provider.id, reason: reasonOf(err) }, 'single sign-on provider discovery failed');
      throw providerUnreachable(provider.name);
    }
  }

  /** Maps what openid-client throws to a refusal a person can read (nothing of the answer itself). */
  private refusal(err: unknown, provider: OidcProviderConfig): DomainError {
    if (err instanceof DomainError) return err;
    if (err instanceof oidc.ResponseBodyError) return err.error === 'invalid_grant' ? codeRefused() : answerNotVerified();
    if (err instanceof oidc.AuthorizationResponseError) return providerDeclined(err.error);
    if (isUnreachable(err)) return providerUnreachable(provider.name);
    this.logger.warn({ provider: provider.id, reason: reasonOf(err) }, 'single sign-on answer refused');
    return answerNotVerified();
  }
}

const stripUndefined = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** A network failure or timeout talking to the provider. */
function isUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return true;
  return err instanceof TypeError && /fetch failed/i.test(err.message);
}

/** An error's class and code only: messages of a failed token call may quote the provider's answer. */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `${err.name} ${code}` : err.name;
}
