import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CloseSession, ListSessions, PauseSession, ResumeSession, StartSession } from '@worktrack/contracts';
import { CommandServer } from '@worktrack/platform';
import { SessionsService } from './sessions.service';

/** Handles the `sessions.session.*` commands on `sessions.commands`. */
@Injectable()
export class SessionsConsumer implements OnModuleInit {
  constructor(
    private readonly commands: CommandServer,
    private readonly sessions: SessionsService,
  ) {}

  onModuleInit(): void {
    this.commands
      .handle(StartSession, (command, meta) => this.sessions.start(command, meta.messageId))
      .handle(PauseSession, (command) => this.sessions.pause(command))
      .handle(ResumeSession, (command) => this.sessions.resume(command))
      .handle(CloseSession, (command) => this.sessions.close(command))
      .handle(ListSessions, (query) => this.sessions.list(query));
  }
}
