import { Module } from '@nestjs/common';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { ConnectorsRpcModule } from '../rpc/rpc.module';
import { ConnectorStoreModule } from '../store/connector-store.module';
import { ConnectorsConsumer } from './connectors.consumer';
import { ConnectorsService } from './connectors.service';

/** Connector configurations as members manage them (D-36): create, list, delete, and the delivery log's pages. */
@Module({
  imports: [ConnectorStoreModule, DeliveriesModule, ConnectorsRpcModule],
  controllers: [ConnectorsConsumer],
  providers: [ConnectorsService],
})
export class ConnectorsModule {}
