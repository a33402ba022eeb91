import type { ConnectorV1, DeliveryV1 } from '@worktrack/contracts';
import type { DeliveryEntity } from '../deliveries/entities/delivery.entity';
import type { ConnectorEntity } from '../store/entities/connector.entity';

/** What members see of a connector: never a secret; the feed URL reduced to scheme and host. */
export const presentConnector = (c: ConnectorEntity): ConnectorV1 => ({
  connectorId: c.id,
  kind: c.kind,
  name: c.name,
  memberId: c.memberId,
  createdBy: c.createdBy,
  account: c.account,
  status: c.status,
  lastError: c.lastError,
  hookPath: c.kind === 'calendar' ? null : `/hooks/${c.kind}/${c.id}`,
  feedUrl: c.feedDisplay,
  pollIntervalSeconds: c.pollIntervalSeconds,
  credentialTokenId: c.credentialTokenId,
  createdAt: c.createdAt.toISOString(),
  lastDeliveryAt: c.lastDeliveryAt?.toISOString() ?? null,
  lastPolledAt: c.lastPolledAt?.toISOString() ?? null,
});

export const presentDelivery = (d: DeliveryEntity): DeliveryV1 => ({
  deliveryId: d.id,
  providerDeliveryId: d.providerDeliveryId,
  providerEvent: d.providerEvent,
  receivedAt: d.receivedAt.toISOString(),
  verified: d.verified,
  state: d.state,
  eventsMapped: d.eventsMapped,
  eventsAccepted: d.eventsAccepted,
  eventsDeduplicated: d.eventsDeduplicated,
  detail: d.detail,
  attempts: d.attempts,
  retryNum: d.retryNum,
  processedAt: d.processedAt?.toISOString() ?? null,
});
