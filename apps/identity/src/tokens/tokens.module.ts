import { Module } from '@nestjs/common';
import { IdentityMembersModule } from '../members/members.module';
import { TokensConsumer } from './tokens.consumer';
import { TokensPublisher } from './tokens.publisher';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  imports: [IdentityMembersModule],
  controllers: [TokensConsumer],
  providers: [TokensRepository, TokensPublisher, TokensService],
  exports: [TokensService],
})
export class TokensModule {}
