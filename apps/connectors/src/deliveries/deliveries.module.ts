import { Module } from '@nestjs/common';
import { ConnectorsRpcModule } from '../rpc/rpc.module';
import { ConnectorStoreModule } from '../store/connector-store.module';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryProcessor } from './delivery.processor';
import { EventWriter } from './event-writer';

/** The delivery log and the processor that writes mapped events through ingestion as the connected member. */
@Module({
  imports: [ConnectorStoreModule, ConnectorsRpcModule],
  providers: [DeliveriesRepository, EventWriter, DeliveryProcessor],
  exports: [DeliveriesRepository, EventWriter, DeliveryProcessor],
})
export class DeliveriesModule {}
