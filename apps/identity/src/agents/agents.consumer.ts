import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RegisterAgent, type PayloadOf } from '@worktrack/contracts';
import { HandleCommand } from '@worktrack/platform';
import { AgentsService } from './agents.service';

/** `identity.agent.register` on `identity.commands` (D-12). */
@Controller()
export class AgentsConsumer {
  constructor(private readonly agents: AgentsService) {}

  @HandleCommand(RegisterAgent)
  register(@Payload() { actor, name, scope }: PayloadOf<typeof RegisterAgent>) {
    return this.agents.register(actor, name, scope);
  }
}
