import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { CreateToken, ErrorCode, ListTokens, RenameToken, RevokeToken } from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { ApiTokenVerifier } from '../auth/api-token.verifier';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors, ApiPage } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedParams, ApiValidatedQuery } from '../openapi/validation-schemas';
import { pageOf, PageQueryDto } from '../pagination/page-query.dto';
import { CreatedTokenBody, CreateTokenDto, presentToken, RenameTokenDto, TokenBody, TokenIdParam } from './tokens.dto';

/** D-10: the caller's own API tokens. */
@Controller('tokens')
export class TokensController {
  constructor(
    private readonly commands: CommandClient,
    private readonly verifier: ApiTokenVerifier,
  ) {}

  /** 201 with the token, shown this once. */
  @Post()
  @HttpCode(201)
  @Access('full')
  @ApiOperation({ summary: 'Create an API token', description: 'The full token is in this response only.' })
  @ApiValidatedBody(CreateTokenDto)
  @ApiData(201, CreatedTokenBody, 'The token, with its secret shown this once.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateTokenDto): Promise<{ data: CreatedTokenBody }> {
    const created = await this.commands.send(
      CreateToken,
      {
        actor: actorOf(principal),
        name: body.name,
        scope: body.scope,
        ...(body.expires_in_days !== undefined ? { expiresInDays: body.expires_in_days } : {}),
      },
      { key: principal.memberId },
    );
    return { data: { ...presentToken(created), token: created.token } };
  }

  /** Without secrets, newest first; revoked ones carry `revoked_at`. */
  @Get()
  @Access('read')
  @ApiOperation({ summary: 'List your API tokens', description: 'Newest first, never with a secret; revoked ones carry `revoked_at`.' })
  @ApiValidatedQuery(PageQueryDto)
  @ApiPage(TokenBody, 'A page of tokens, newest first.')
  @ApiErrors(ErrorCode.INVALID_CURSOR)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: PageQueryDto,
  ): Promise<{ data: TokenBody[]; meta: { cursor: string | null } }> {
    const page = await this.commands.send(ListTokens, { actor: actorOf(principal), ...pageOf(query) }, { key: principal.memberId });
    return { data: page.tokens.map(presentToken), meta: { cursor: page.nextCursor ?? null } };
  }

  /** D-43: renames one of the caller's tokens. */
  @Patch(':token_id')
  @Access('full')
  @ApiOperation({ summary: 'Rename an API token', description: "Another member's token is a 404." })
  @ApiValidatedParams(TokenIdParam)
  @ApiValidatedBody(RenameTokenDto)
  @ApiData(200, TokenBody, 'The token, renamed.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async rename(
    @CurrentPrincipal() principal: Principal,
    @Param() params: TokenIdParam,
    @Body() body: RenameTokenDto,
  ): Promise<{ data: TokenBody }> {
    const renamed = await this.commands.send(
      RenameToken,
      { actor: actorOf(principal), tokenId: params.token_id, name: body.name },
      { key: principal.memberId },
    );
    return { data: presentToken(renamed) };
  }

  /** Revokes (idempotent). Another member's or an unknown token is 404 NOT_FOUND. */
  @Delete(':token_id')
  @Access('full')
  @ApiOperation({
    summary: 'Revoke an API token',
    description: "Idempotent. Every gateway replica refuses the token within 5 seconds. Another member's token is a 404.",
  })
  @ApiValidatedParams(TokenIdParam)
  @ApiData(200, TokenBody, 'The token, revoked.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async revoke(@CurrentPrincipal() principal: Principal, @Param() params: TokenIdParam): Promise<{ data: TokenBody }> {
    const revoked = await this.commands.send(
      RevokeToken,
      { actor: actorOf(principal), tokenId: params.token_id },
      { key: principal.memberId },
    );
    this.verifier.forget(params.token_id);
    return { data: presentToken(revoked) };
  }
}
