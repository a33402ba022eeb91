import { Module } from '@nestjs/common';
import { CommandClientHost } from './command-client.host';

/** The gateway's one CommandClient (request/reply over Kafka, ADR 0002). */
@Module({
  providers: [CommandClientHost],
  exports: [CommandClientHost],
})
export class RpcModule {}
