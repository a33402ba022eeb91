import { Module } from '@nestjs/common';
import { GatewayAuthModule } from '../auth/auth.module';
import { RpcModule } from '../rpc/rpc.module';
import { PlateController } from './plate.controller';

/** The /v1/plate routes (D-32 … D-35). */
@Module({
  imports: [RpcModule, GatewayAuthModule],
  controllers: [PlateController],
})
export class PlateHttpModule {}
