import { Module } from '@nestjs/common';
import { RpcModule } from '../rpc/rpc.module';

/** The /v1/sessions routes (D-22 … D-30). */
@Module({
  imports: [RpcModule],
  controllers: [],
})
export class SessionsHttpModule {}
