import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CreateToken, ListTokens, RevokeToken } from '@worktrack/contracts';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { ApiTokenVerifier } from '../auth/api-token.verifier';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { CommandClientHost } from '../rpc/command-client.host';
import { CreateTokenDto, presentToken, TokenIdParam, type TokenBody } from './tokens.dto';

/** D-10: the caller's own API tokens. */
@Controller('tokens')
export class TokensController {
  constructor(
    private readonly commands: CommandClientHost,
    private readonly verifier: ApiTokenVerifier,
  ) {}

  /** 201 with the token, shown this once. */
  @Post()
  @HttpCode(201)
  @Access('full')
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenDto): Promise<{ data: TokenBody & { token: string } }> {
    const created = await this.commands.client.send(
      CreateToken,
      { actor: actorOf(principal), name: body.name, scope: body.scope },
      { key: principal.memberId },
    );
    return { data: { ...presentToken(created), token: created.token } };
  }

  /** Without secrets, newest first; revoked ones carry `revoked_at`. */
  @Get()
  @Access('read')
  async list(@CurrentPrincipal() principal: Principal): Promise<{ data: TokenBody[] }> {
    const { tokens } = await this.commands.client.send(ListTokens, { actor: actorOf(principal) }, { key: principal.memberId });
    return { data: tokens.map(presentToken) };
  }

  /** Revokes (idempotent). Another member's or an unknown token is 404 NOT_FOUND. */
  @Delete(':token_id')
  @Access('full')
  async revoke(@CurrentPrincipal() principal: Principal, @Param() params: TokenIdParam): Promise<{ data: TokenBody }> {
    const revoked = await this.commands.client.send(
      RevokeToken,
      { actor: actorOf(principal), tokenId: params.token_id },
      { key: principal.memberId },
    );
    this.verifier.forget(params.token_id);
    return { data: presentToken(revoked) };
  }
}
