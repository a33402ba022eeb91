import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { CreateToken, ErrorCode, ListTokens, RevokeToken } from '@worktrack/contracts';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { ApiTokenVerifier } from '../auth/api-token.verifier';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedParams } from '../openapi/validation-schemas';
import { CommandClientHost } from '../rpc/command-client.host';
import { CreatedTokenBody, CreateTokenDto, presentToken, TokenBody, TokenIdParam } from './tokens.dto';

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
  @ApiOperation({ summary: 'Create an API token', description: 'The full token is in this response only (D-8, D-10).' })
  @ApiValidatedBody(CreateTokenDto)
  @ApiData(201, CreatedTokenBody, 'The token, with its secret shown this once.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenDto): Promise<{ data: CreatedTokenBody }> {
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
  @ApiOperation({ summary: 'List your API tokens', description: 'Newest first, never with a secret; revoked ones carry `revoked_at`.' })
  @ApiData(200, [TokenBody], 'The tokens.')
  async list(@CurrentPrincipal() principal: Principal): Promise<{ data: TokenBody[] }> {
    const { tokens } = await this.commands.client.send(ListTokens, { actor: actorOf(principal) }, { key: principal.memberId });
    return { data: tokens.map(presentToken) };
  }

  /** Revokes (idempotent). Another member's or an unknown token is 404 NOT_FOUND. */
  @Delete(':token_id')
  @Access('full')
  @ApiOperation({
    summary: 'Revoke an API token',
    description: "Idempotent. Every gateway replica refuses the token within 5 seconds (D-10). Another member's token is a 404.",
  })
  @ApiValidatedParams(TokenIdParam)
  @ApiData(200, TokenBody, 'The token, revoked.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
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
