import { Module } from '@nestjs/common';
import { RpcModule } from '../rpc/rpc.module';
import { SessionsController } from './sessions.controller';

/** The /v1/sessions routes (D-22 … D-30). */
@Module({
  imports: [RpcModule],
  controllers: [SessionsController],
})
export class SessionsHttpModule {}
