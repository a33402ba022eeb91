import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RegisterAgent } from '@worktrack/contracts';
import { CommandServer } from '@worktrack/platform';
import { AgentsService } from './agents.service';

/** Handles `identity.agent.register` on `identity.commands` (D-12). */
@Injectable()
export class AgentsConsumer implements OnModuleInit {
  constructor(
    private readonly commands: CommandServer,
    private readonly agents: AgentsService,
  ) {}

  onModuleInit(): void {
    this.commands.handle(RegisterAgent, ({ actor, name, scope }) => this.agents.register(actor, name, scope));
  }
}
