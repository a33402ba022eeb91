import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AcceptInvite,
  ConfirmTotp,
  DisableTotp,
  StartTotp,
  UpdateWorkspace,
  ChangePassword,
  CheckBrowserSession,
  CreateInvite,
  EndBrowserSession,
  GetSigningKeys,
  ListBrowserSessions,
  ListInvites,
  ListSignInMethods,
  StartOidcSignIn,
  FinishOidcSignIn,
  RefreshBrowserSession,
  SignIn,
  SignOut,
  WithdrawInvite,
  type PayloadOf,
} from '@worktrack/contracts';
import { HandleCommand } from '@worktrack/platform';
import { BrowserSessionsService } from './browser-sessions.service';
import { InvitesService } from './invites.service';
import { OidcService } from './oidc/oidc.service';
import { SignInService } from './sign-in.service';
import { SigningKeys } from './signing-keys';
import { TwoFactorService } from './two-factor.service';

/** People's access on `identity.commands`: sign-in, single sign-on, browser sessions, invites, signing keys (D-38 … D-41). */
@Controller()
export class AuthConsumer {
  constructor(
    private readonly signIns: SignInService,
    private readonly sessions: BrowserSessionsService,
    private readonly invites: InvitesService,
    private readonly keys: SigningKeys,
    private readonly twoFactor: TwoFactorService,
    private readonly oidc: OidcService,
  ) {}

  @HandleCommand(SignIn)
  signIn(@Payload() command: PayloadOf<typeof SignIn>) {
    return this.signIns.signIn(command);
  }

  @HandleCommand(RefreshBrowserSession)
  refresh(@Payload() command: PayloadOf<typeof RefreshBrowserSession>) {
    return this.sessions.refresh(command);
  }

  @HandleCommand(SignOut)
  signOut(@Payload() { presentedSha256 }: PayloadOf<typeof SignOut>) {
    return this.sessions.signOut(presentedSha256);
  }

  @HandleCommand(EndBrowserSession)
  end(@Payload() { actor, sid }: PayloadOf<typeof EndBrowserSession>) {
    return this.sessions.endOne(actor, sid);
  }

  @HandleCommand(ListBrowserSessions)
  list(@Payload() { actor }: PayloadOf<typeof ListBrowserSessions>) {
    return this.sessions.list(actor);
  }

  @HandleCommand(CheckBrowserSession)
  check(@Payload() { sid }: PayloadOf<typeof CheckBrowserSession>) {
    return this.sessions.check(sid);
  }

  @HandleCommand(ChangePassword)
  changePassword(@Payload() command: PayloadOf<typeof ChangePassword>) {
    return this.signIns.changePassword(command);
  }

  @HandleCommand(CreateInvite)
  createInvite(@Payload() command: PayloadOf<typeof CreateInvite>) {
    return this.invites.create(command);
  }

  @HandleCommand(ListInvites)
  listInvites(@Payload() { actor }: PayloadOf<typeof ListInvites>) {
    return this.invites.list(actor);
  }

  @HandleCommand(WithdrawInvite)
  withdrawInvite(@Payload() { actor, inviteId }: PayloadOf<typeof WithdrawInvite>) {
    return this.invites.withdraw(actor, inviteId);
  }

  @HandleCommand(AcceptInvite)
  acceptInvite(@Payload() command: PayloadOf<typeof AcceptInvite>) {
    return this.invites.accept(command);
  }

  @HandleCommand(GetSigningKeys)
  signingKeys() {
    return { keys: this.keys.publicKeys(), issuer: this.keys.issuer };
  }

  @HandleCommand(StartTotp)
  startTotp(@Payload() { actor }: PayloadOf<typeof StartTotp>) {
    return this.twoFactor.start(actor);
  }

  @HandleCommand(ConfirmTotp)
  confirmTotp(@Payload() command: PayloadOf<typeof ConfirmTotp>) {
    return this.twoFactor.confirm(command);
  }

  @HandleCommand(DisableTotp)
  disableTotp(@Payload() { actor, code }: PayloadOf<typeof DisableTotp>) {
    return this.twoFactor.disable(actor, code);
  }

  @HandleCommand(UpdateWorkspace)
  updateWorkspace(@Payload() command: PayloadOf<typeof UpdateWorkspace>) {
    return this.twoFactor.updateWorkspace(command);
  }

  @HandleCommand(ListSignInMethods)
  signInMethods() {
    return this.oidc.methods();
  }

  @HandleCommand(StartOidcSignIn)
  startOidc(@Payload() command: PayloadOf<typeof StartOidcSignIn>) {
    return this.oidc.start(command);
  }

  @HandleCommand(FinishOidcSignIn)
  finishOidc(@Payload() command: PayloadOf<typeof FinishOidcSignIn>) {
    return this.oidc.finish(command);
  }
}
