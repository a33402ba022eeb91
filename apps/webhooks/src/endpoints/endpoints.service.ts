import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  MAX_WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_TYPE,
  type ActorV1,
  type CreateWebhookEndpointV1,
  type ListWebhookAttemptsV1,
  type ListWebhookEndpointsV1,
  type RecoverWebhookMessagesV1,
  type UpdateWebhookEndpointV1,
  type WebhookAttemptPageV1,
  type WebhookAttemptV1,
  type WebhookEndpointPageV1,
  type WebhookEndpointV1,
} from '@worktrack/contracts';
import { SignedCursor, type CursorScope } from '@worktrack/platform';
import { DeliveryEngine } from '../delivery/delivery.engine';
import { newEndpointSecret } from '../delivery/signer';
import { SecretBox } from '@worktrack/platform';
import { SECRET_OVERLAP_MS, WebhooksConfig } from '../webhooks.config';
import { endpointNotFound, invalidInput, messageNotFound, ownersAndAdminsOnly } from '../webhooks.errors';
import { WebhooksRepository, type AttemptRow, type EndpointRow } from '../webhooks.repository';
import { endpointUrlProblem } from './endpoint-url';

const KNOWN_TYPES: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

/** D-53 … D-56: endpoints of a workspace, managed by its owners and admins. */
@Injectable()
export class EndpointsService {
  private readonly box: SecretBox;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly engine: DeliveryEngine,
    private readonly cursors: SignedCursor,
    private readonly config: WebhooksConfig,
  ) {
    this.box = new SecretBox(config.WEBHOOK_SECRET_KEYS, 'WEBHOOK_SECRET_KEYS');
  }

  async create(command: CreateWebhookEndpointV1): Promise<WebhookEndpointV1> {
    this.mayManage(command.actor);
    const problems = [...this.urlProblems(command.url), ...eventTypeProblems(command.eventTypes)];
    if (problems.length > 0) throw invalidInput(problems);
    const secret = newEndpointSecret();
    const row = await this.repo.insertEndpoint({
      id: randomUUID(),
      workspace_id: command.actor.workspaceId,
      url: command.url,
      event_types: [...new Set(command.eventTypes)],
      description: command.description ?? null,
      secret: this.box.seal(secret),
    });
    return { ...present(row), secret };
  }

  async list({ actor, limit, cursor }: ListWebhookEndpointsV1): Promise<WebhookEndpointPageV1> {
    this.mayManage(actor);
    const scope: CursorScope = { list: 'webhook-endpoints', owner: actor.workspaceId };
    const rows = await this.repo.endpoints(actor.workspaceId, limit + 1, this.cursors.createdAtKey(cursor, scope));
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      endpoints: page.map(present),
      nextCursor: rows.length > limit && last ? this.cursors.encode([last.created_at.toISOString(), last.id], scope) : null,
    };
  }

  async get(actor: ActorV1, endpointId: string): Promise<WebhookEndpointV1> {
    return present(await this.owned(actor, endpointId));
  }

  async update(command: UpdateWebhookEndpointV1): Promise<WebhookEndpointV1> {
    this.mayManage(command.actor);
    const problems = [
      ...(command.url !== undefined ? this.urlProblems(command.url) : []),
      ...(command.eventTypes !== undefined ? eventTypeProblems(command.eventTypes) : []),
    ];
    if (problems.length > 0) throw invalidInput(problems);
    const row = await this.repo.updateEndpoint(command.actor.workspaceId, command.endpointId, {
      ...(command.url !== undefined ? { url: command.url } : {}),
      ...(command.eventTypes !== undefined ? { eventTypes: [...new Set(command.eventTypes)] } : {}),
      ...(command.description !== undefined ? { description: command.description } : {}),
      ...(command.enabled !== undefined ? { enabled: command.enabled } : {}),
    });
    if (!row) throw endpointNotFound();
    if (command.enabled) this.engine.kick();
    return present(row);
  }

  async remove(actor: ActorV1, endpointId: string): Promise<WebhookEndpointV1> {
    this.mayManage(actor);
    const row = await this.repo.deleteEndpoint(actor.workspaceId, endpointId);
    if (!row) throw endpointNotFound();
    return present(row);
  }

  /** D-53: a new secret, shown once; the old one keeps signing beside it for 24 hours. */
  async rotate(actor: ActorV1, endpointId: string): Promise<WebhookEndpointV1> {
    this.mayManage(actor);
    const secret = newEndpointSecret();
    const until = new Date(Date.now() + SECRET_OVERLAP_MS);
    const row = await this.repo.rotateSecret(actor.workspaceId, endpointId, this.box.seal(secret), until);
    if (!row) throw endpointNotFound();
    return { ...present(row), secret };
  }

  /** D-53: a signed `webhook.test` message to this endpoint alone. */
  async test(actor: ActorV1, endpointId: string): Promise<{ webhookId: string }> {
    const endpoint = await this.owned(actor, endpointId);
    const webhookId = `msg_${randomBytes(16).toString('hex')}`;
    const body = JSON.stringify({
      type: WEBHOOK_TEST_TYPE,
      timestamp: new Date().toISOString(),
      data: { endpoint_id: endpoint.id, workspace_id: endpoint.workspace_id, member_id: actor.memberId },
    });
    await this.repo.queueFor(endpoint.id, { webhookId, workspaceId: endpoint.workspace_id, type: WEBHOOK_TEST_TYPE, body });
    this.engine.kick();
    return { webhookId };
  }

  async attempts({ actor, endpointId, limit, cursor }: ListWebhookAttemptsV1): Promise<WebhookAttemptPageV1> {
    await this.owned(actor, endpointId);
    const scope: CursorScope = { list: 'webhook-attempts', owner: actor.workspaceId, filters: { endpointId } };
    const rows = await this.repo.attempts(endpointId, limit + 1, this.cursors.createdAtKey(cursor, scope));
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      attempts: page.map(presentAttempt),
      nextCursor: rows.length > limit && last ? this.cursors.encode([last.attempted_at.toISOString(), last.id], scope) : null,
    };
  }

  async replay(actor: ActorV1, webhookId: string): Promise<{ messages: number }> {
    this.mayManage(actor);
    const sent = await this.repo.replay(actor.workspaceId, webhookId);
    if (sent === null) throw messageNotFound();
    this.engine.kick();
    return { messages: sent };
  }

  async recover({ actor, endpointId, since }: RecoverWebhookMessagesV1): Promise<{ messages: number }> {
    await this.owned(actor, endpointId);
    const messages = await this.repo.recover(endpointId, new Date(since));
    this.engine.kick();
    return { messages };
  }

  private async owned(actor: ActorV1, endpointId: string): Promise<EndpointRow> {
    this.mayManage(actor);
    const row = await this.repo.endpoint(actor.workspaceId, endpointId);
    if (!row) throw endpointNotFound();
    return row;
  }

  /** D-53: owners and admins (the gateway lets only full credentials change anything, D-9). */
  private mayManage(actor: ActorV1): void {
    const role = actor.profile?.role;
    if (role !== 'owner' && role !== 'admin') throw ownersAndAdminsOnly();
  }

  private urlProblems(url: string): Array<{ path: string; issue: string }> {
    const problem = endpointUrlProblem(url, this.config.FEED_ALLOW_PRIVATE_HOSTS);
    return problem ? [{ path: 'url', issue: problem }] : [];
  }
}

/** D-53, D-54: 1 to 50 event types, each a known one (no wildcards). */
function eventTypeProblems(types: readonly string[]): Array<{ path: string; issue: string }> {
  const problems: Array<{ path: string; issue: string }> = [];
  if (types.length === 0) problems.push({ path: 'event_types', issue: 'must name at least one event type' });
  if (types.length > MAX_WEBHOOK_EVENT_TYPES)
    problems.push({ path: 'event_types', issue: `must name at most ${MAX_WEBHOOK_EVENT_TYPES} event types` });
  types.forEach((type, i) => {
    if (!KNOWN_TYPES.has(type))
      problems.push({ path: `event_types[${i}]`, issue: `unknown event type; one of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
  });
  return problems.slice(0, 20);
}

const present = (e: EndpointRow): WebhookEndpointV1 => ({
  endpointId: e.id,
  url: e.url,
  eventTypes: e.event_types,
  description: e.description,
  enabled: e.enabled,
  disabledReason: e.disabled_reason,
  createdAt: e.created_at.toISOString(),
});

const presentAttempt = (a: AttemptRow): WebhookAttemptV1 => ({
  attemptId: a.id,
  webhookId: a.webhook_id,
  type: a.type,
  statusCode: a.status_code,
  outcome: a.outcome,
  durationMs: a.duration_ms,
  attemptedAt: a.attempted_at.toISOString(),
  nextAttemptAt: a.next_attempt_at ? a.next_attempt_at.toISOString() : null,
});
