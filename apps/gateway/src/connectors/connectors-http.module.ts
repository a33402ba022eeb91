import { Module } from '@nestjs/common';
import { RpcModule } from '../rpc/rpc.module';
import { ConnectorsController } from './connectors.controller';
import { HookSecrets } from './hook-secrets';
import { HooksController } from './hooks.controller';

/** /v1/connectors (D-36) and the provider webhook endpoints under /hooks. */
@Module({
  imports: [RpcModule],
  controllers: [ConnectorsController, HooksController],
  providers: [HookSecrets],
})
export class ConnectorsHttpModule {}
