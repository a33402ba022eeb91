import { Module } from '@nestjs/common';
import { IdentityMembersModule } from '../members/members.module';
import { TokensModule } from '../tokens/tokens.module';
import { AgentsConsumer } from './agents.consumer';
import { AgentsService } from './agents.service';

@Module({
  imports: [IdentityMembersModule, TokensModule],
  controllers: [AgentsConsumer],
  providers: [AgentsService],
})
export class AgentsModule {}
