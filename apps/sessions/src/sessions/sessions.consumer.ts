import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  CloseSession,
  FindOwnedSessions,
  ListSessions,
  PauseSession,
  ResumeSession,
  StartSession,
  type PayloadOf,
} from '@worktrack/contracts';
import { ContractContext, HandleCommand } from '@worktrack/platform';
import { SessionsService } from './sessions.service';

/** The `sessions.session.*` commands on `sessions.commands`. */
@Controller()
export class SessionsConsumer {
  constructor(private readonly sessions: SessionsService) {}

  @HandleCommand(StartSession)
  start(@Payload() command: PayloadOf<typeof StartSession>, @Ctx() ctx: ContractContext) {
    return this.sessions.start(command, ctx.messageId);
  }

  @HandleCommand(PauseSession)
  pause(@Payload() command: PayloadOf<typeof PauseSession>) {
    return this.sessions.pause(command);
  }

  @HandleCommand(ResumeSession)
  resume(@Payload() command: PayloadOf<typeof ResumeSession>) {
    return this.sessions.resume(command);
  }

  @HandleCommand(CloseSession)
  close(@Payload() command: PayloadOf<typeof CloseSession>) {
    return this.sessions.close(command);
  }

  @HandleCommand(ListSessions)
  list(@Payload() query: PayloadOf<typeof ListSessions>) {
    return this.sessions.list(query);
  }

  @HandleCommand(FindOwnedSessions)
  owned(@Payload() query: PayloadOf<typeof FindOwnedSessions>) {
    return this.sessions.owned(query);
  }
}
