import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_PAGE_SIZE,
  DEFAULT_POLL_INTERVAL_SECONDS,
  ErrorCode,
  IssueConnectorCredential,
  MAX_PAGE_BYTES,
  RevokeToken,
  type ActorV1,
  type ConnectorListV1,
  type ConnectorV1,
  type CreateConnectorV1,
  type DeliveryPageV1,
  type ErrorDetail,
  type ListConnectorsV1,
  type ListDeliveriesV1,
} from '@worktrack/contracts';
import { type AppLogger, CommandClient, type CursorScope, DomainError, LOGGER, SignedCursor, takeWithinBytes } from '@worktrack/platform';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { EventWriter } from '../deliveries/event-writer';
import { SecretBox } from '@worktrack/platform';
import { parseFeedUrl } from '../calendar/feed-url';
import { ConnectorsRepository } from '../store/connectors.repository';
import type { ConnectorEntity } from '../store/entities/connector.entity';
import { presentConnector, presentDelivery } from './connector.presenter';
import { connectorNotFound, invalidSettings } from './connectors.errors';

/** Connect, list and disconnect provider accounts; read a connector's delivery log (D-36). */
@Injectable()
export class ConnectorsService {
  constructor(
    private readonly connectors: ConnectorsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly commands: CommandClient,
    private readonly box: SecretBox,
    private readonly writer: EventWriter,
    private readonly cursors: SignedCursor,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  async create(command: CreateConnectorV1): Promise<ConnectorV1> {
    const { actor, kind } = command;
    const feedUrl = checkSettings(command);
    const memberId = command.memberId ?? actor.memberId;
    const id = randomUUID();
    const credential = await this.commands.send(
      IssueConnectorCredential,
      { actor, memberId, name: `connector ${kind}: ${command.name}`.slice(0, 100) },
      { key: actor.memberId },
    );
    try {
      const connector = await this.connectors.insert({
        id,
        workspaceId: actor.workspaceId,
        memberId,
        createdBy: actor.memberId,
        kind,
        name: command.name,
        account: command.account ?? null,
        secretBox: command.secret != null ? this.box.seal(command.secret) : null,
        feedBox: feedUrl ? this.box.seal(feedUrl.href) : null,
        feedDisplay: feedUrl ? `${feedUrl.protocol}//${feedUrl.host}/…` : null,
        pollIntervalSeconds: kind === 'calendar' ? (command.pollIntervalSeconds ?? DEFAULT_POLL_INTERVAL_SECONDS) : null,
        credentialTokenId: credential.tokenId,
        credentialBox: this.box.seal(credential.token),
        status: 'active',
        lastError: null,
        deletedAt: null,
        lastDeliveryAt: null,
        lastPolledAt: null,
        nextPollAt: kind === 'calendar' ? new Date() : null,
        pollLeaseUntil: null,
        calendarState: null,
      });
      return presentConnector(connector);
    } catch (err) {
      await this.revokeCredential({ memberId, workspaceId: actor.workspaceId, credentialTokenId: credential.tokenId }).catch(
        (revokeErr: unknown) =>
          this.logger.error({ err: revokeErr, tokenId: credential.tokenId }, 'could not revoke an unused connector credential'),
      );
      throw err;
    }
  }

  /** A page of the caller's connectors, oldest first. */
  async list({ actor, limit = DEFAULT_PAGE_SIZE, cursor }: ListConnectorsV1): Promise<ConnectorListV1> {
    const scope: CursorScope = { list: 'connectors', owner: actor.memberId };
    const after = this.cursors.createdAtKey(cursor, scope);
    const rows = await this.connectors.listFor(actor.workspaceId, actor.memberId, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      connectors: page.map(presentConnector),
      nextCursor: rows.length > limit && last ? this.cursors.encode([last.createdAt.toISOString(), last.id], scope) : null,
    };
  }

  /** Revokes the credential first, so nothing is written as the member once this answers. */
  async delete(actor: ActorV1, connectorId: string): Promise<ConnectorV1> {
    const connector = await this.visible(actor, connectorId);
    await this.revokeCredential(connector);
    const deletedAt = new Date();
    await this.connectors.markDeleted(connector.id, deletedAt);
    this.writer.forget(connector.id);
    return presentConnector({ ...connector, deletedAt });
  }

  async deliveryPage(query: ListDeliveriesV1): Promise<DeliveryPageV1> {
    const connector = await this.visible(query.actor, query.connectorId);
    // Bound to the connector and to the member reading its log.
    const scope: CursorScope = { list: 'connectors.deliveries', owner: query.actor.memberId, filters: { connectorId: connector.id } };
    let after: { receivedAt: string; id: string } | undefined;
    if (query.cursor) {
      const [receivedAt, id] = this.cursors.decode(query.cursor, scope);
      after = { receivedAt: String(receivedAt), id: String(id) };
    }
    const rows = await this.deliveries.page(connector.id, query.limit + 1, after);
    const page = takeWithinBytes(rows.slice(0, query.limit), MAX_PAGE_BYTES, (d) => Buffer.byteLength(JSON.stringify(presentDelivery(d))));
    const last = page[page.length - 1];
    return {
      deliveries: page.map(presentDelivery),
      nextCursor: rows.length > page.length && last ? this.cursors.encode([last.receivedAt.toISOString(), last.id], scope) : null,
    };
  }

  /** The connector if the caller may see it: it acts for them or they created it. Anything else is a missing one (D-7). */
  private async visible(actor: ActorV1, connectorId: string): Promise<ConnectorEntity> {
    const connector = await this.connectors.findLive(connectorId);
    if (
      !connector ||
      connector.workspaceId !== actor.workspaceId ||
      (connector.memberId !== actor.memberId && connector.createdBy !== actor.memberId)
    ) {
      throw connectorNotFound(connectorId);
    }
    return connector;
  }

  private async revokeCredential(c: Pick<ConnectorEntity, 'memberId' | 'workspaceId' | 'credentialTokenId'>): Promise<void> {
    // The token belongs to the connected member: revoke it as that member (identity checks ownership).
    const owner: ActorV1 = { memberId: c.memberId, workspaceId: c.workspaceId, scope: 'full', credential: 'api_token' };
    try {
      await this.commands.send(RevokeToken, { actor: owner, tokenId: c.credentialTokenId }, { key: c.memberId });
    } catch (err) {
      // Already gone with its member: nothing left to revoke.
      if (!(err instanceof DomainError && (err.code === ErrorCode.NOT_FOUND || err.code === ErrorCode.UNAUTHENTICATED))) throw err;
    }
  }
}

/** Kind-specific settings (the contract checks each field; this checks which fields a kind needs). Returns the parsed feed URL. */
function checkSettings(c: CreateConnectorV1): URL | null {
  const details: ErrorDetail[] = [];
  const need = (present: boolean, path: string, why: string): void => {
    if (!present) details.push({ path, issue: why });
  };
  const forbid = (present: boolean, path: string): void => {
    if (present) details.push({ path, issue: `not used by a ${c.kind} connector` });
  };
  let feed: URL | null = null;
  switch (c.kind) {
    case 'github':
    case 'slack':
      need(c.secret != null, 'secret', c.kind === 'github' ? 'the webhook secret is required' : 'the signing secret is required');
      forbid(c.feedUrl != null, 'feed_url');
      forbid(c.pollIntervalSeconds != null, 'poll_interval_seconds');
      break;
    case 'calendar':
      need(c.feedUrl != null, 'feed_url', 'the calendar feed URL (https://… or webcal://…) is required');
      forbid(c.secret != null, 'secret');
      forbid(c.account != null, 'account');
      if (c.feedUrl != null) {
        feed = parseFeedUrl(c.feedUrl);
        if (!feed) details.push({ path: 'feed_url', issue: 'must be an http, https or webcal URL' });
      }
      break;
  }
  if (details.length > 0) throw invalidSettings(details);
  return feed;
}
