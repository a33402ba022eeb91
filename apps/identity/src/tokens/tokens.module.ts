import { Module } from '@nestjs/common';
import { ServiceConfig, SignedCursor } from '@worktrack/platform';
import { EventsModule } from '../events/events.module';
import { MembersModule } from '../members/members.module';
import { TokensConsumer } from './tokens.consumer';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  imports: [MembersModule, EventsModule],
  controllers: [TokensConsumer],
  providers: [
    TokensRepository,
    TokensService,
    { provide: SignedCursor, inject: [ServiceConfig], useFactory: (config: ServiceConfig) => new SignedCursor(config.CURSOR_SECRET) },
  ],
  exports: [TokensService],
})
export class TokensModule {}
