import { Module } from '@nestjs/common';
import { RpcModule } from '../rpc/rpc.module';
import { ApiTokenVerifier } from './api-token.verifier';
import { AuthGuard, JwtGuard } from './auth.guard';
import { BrowserSessionVerifier } from './browser-session.verifier';
import { JwtStrategy } from './jwt.strategy';
import { SessionJwtVerifier } from './session-jwt.verifier';
import { SessionKeys } from './session-keys';
import { TokenRegistry } from './token-registry';

@Module({
  imports: [RpcModule],
  providers: [JwtStrategy, JwtGuard, TokenRegistry, ApiTokenVerifier, SessionKeys, SessionJwtVerifier, BrowserSessionVerifier, AuthGuard],
  exports: [AuthGuard, ApiTokenVerifier, SessionKeys, BrowserSessionVerifier],
})
export class GatewayAuthModule {}
