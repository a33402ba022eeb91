import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CreateToken, IssueConnectorCredential, ListTokens, RevokeToken, VerifyToken } from '@worktrack/contracts';
import { CommandServer } from '@worktrack/platform';
import { TokensService } from './tokens.service';

/** Handles the token commands on `identity.commands` (D-8, D-10). */
@Injectable()
export class TokensConsumer implements OnModuleInit {
  constructor(
    private readonly commands: CommandServer,
    private readonly tokens: TokensService,
  ) {}

  onModuleInit(): void {
    this.commands
      .handle(VerifyToken, async ({ tokenId, secretSha256 }) => ({ actor: await this.tokens.verify(tokenId, secretSha256) }))
      .handle(CreateToken, ({ actor, name, scope }) => this.tokens.create(actor, name, scope))
      .handle(ListTokens, async ({ actor }) => ({ tokens: await this.tokens.list(actor) }))
      .handle(RevokeToken, ({ actor, tokenId }) => this.tokens.revoke(actor, tokenId))
      .handle(IssueConnectorCredential, ({ actor, memberId, name }) => this.tokens.issueConnectorCredential(actor, memberId, name));
  }
}
