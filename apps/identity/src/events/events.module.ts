import { Module } from '@nestjs/common';
import { OutboxRelay } from '@worktrack/platform';
import { IdentityEvents } from './identity-events';
import { OutboxRelayHost } from './outbox-relay.host';

/** Identity's events on `identity.events`, through the transactional outbox. */
@Module({
  providers: [
    OutboxRelayHost,
    { provide: OutboxRelay, inject: [OutboxRelayHost], useFactory: (host: OutboxRelayHost) => host.relay },
    IdentityEvents,
  ],
  exports: [IdentityEvents],
})
export class EventsModule {}
