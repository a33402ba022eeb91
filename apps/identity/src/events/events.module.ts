import { Module } from '@nestjs/common';
import { outboxRelayProviders } from '@worktrack/platform';
import { IdentityEvents } from './identity-events';

/** Identity's events on `identity.events`, through the transactional outbox. */
@Module({
  providers: [...outboxRelayProviders, IdentityEvents],
  exports: [IdentityEvents],
})
export class EventsModule {}
