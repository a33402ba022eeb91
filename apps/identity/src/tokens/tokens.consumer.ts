import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CreateToken,
  IssueConnectorCredential,
  ListTokens,
  RenameToken,
  RevokeToken,
  VerifyToken,
  type PayloadOf,
} from '@worktrack/contracts';
import { HandleCommand } from '@worktrack/platform';
import { TokensService } from './tokens.service';

/** The token commands on `identity.commands` (D-8, D-10). */
@Controller()
export class TokensConsumer {
  constructor(private readonly tokens: TokensService) {}

  @HandleCommand(VerifyToken)
  async verify(@Payload() { tokenId, secretSha256 }: PayloadOf<typeof VerifyToken>) {
    return { actor: await this.tokens.verify(tokenId, secretSha256) };
  }

  @HandleCommand(CreateToken)
  create(@Payload() { actor, name, scope, expiresInDays }: PayloadOf<typeof CreateToken>) {
    return this.tokens.create(actor, name, scope, expiresInDays);
  }

  @HandleCommand(RenameToken)
  rename(@Payload() { actor, tokenId, name }: PayloadOf<typeof RenameToken>) {
    return this.tokens.rename(actor, tokenId, name);
  }

  @HandleCommand(ListTokens)
  list(@Payload() query: PayloadOf<typeof ListTokens>) {
    return this.tokens.list(query);
  }

  @HandleCommand(RevokeToken)
  revoke(@Payload() { actor, tokenId }: PayloadOf<typeof RevokeToken>) {
    return this.tokens.revoke(actor, tokenId);
  }

  @HandleCommand(IssueConnectorCredential)
  issueConnectorCredential(@Payload() { actor, memberId, name }: PayloadOf<typeof IssueConnectorCredential>) {
    return this.tokens.issueConnectorCredential(actor, memberId, name);
  }
}
