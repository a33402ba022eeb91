import { Injectable, type OnModuleInit } from '@nestjs/common';
import { GetMe } from '@worktrack/contracts';
import { CommandServer } from '@worktrack/platform';
import { MembersService } from './members.service';

/** Handles `identity.me.get` on `identity.commands`. */
@Injectable()
export class MembersConsumer implements OnModuleInit {
  constructor(
    private readonly commands: CommandServer,
    private readonly members: MembersService,
  ) {}

  onModuleInit(): void {
    this.commands.handle(GetMe, ({ actor }) => this.members.me(actor));
  }
}
