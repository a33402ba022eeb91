import { Module } from '@nestjs/common';
import { RpcModule } from '../rpc/rpc.module';
import { ApiTokenVerifier } from './api-token.verifier';
import { AuthGuard, JwtGuard } from './auth.guard';
import { JwtStrategy } from './jwt.strategy';
import { TokenRegistry } from './token-registry';

@Module({
  imports: [RpcModule],
  providers: [JwtStrategy, JwtGuard, TokenRegistry, ApiTokenVerifier, AuthGuard],
  exports: [AuthGuard, ApiTokenVerifier],
})
export class AuthModule {}
