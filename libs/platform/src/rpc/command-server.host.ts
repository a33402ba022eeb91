import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CommandServer } from './command.server';

/**
 * Starts the service's CommandServer once every feature module registered its
 * handlers (onApplicationBootstrap), and drains it first on shutdown
 * (onModuleDestroy runs before HTTP and connections close).
 */
@Injectable()
export class CommandServerHost implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(readonly server: CommandServer) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.server.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.server.stop();
  }
}
