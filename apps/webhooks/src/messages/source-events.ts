import { createHash } from 'node:crypto';
import type { MemberV1, PlateItemAssignedV1, SessionChangedV1, WebhookEventType } from '@worktrack/contracts';

/** One message to send (D-54): its id, its workspace, its type and the exact body every attempt sends. */
export interface OutgoingMessage {
  webhookId: string;
  workspaceId: string;
  type: string;
  body: string;
}

/**
 * D-55: the webhook-id of a source event, derived from what identifies the
 * event (never from the Kafka record), so an event consumed twice makes the
 * same id, and the second insert is a no-op.
 */
export const webhookIdOf = (source: string): string => `msg_${createHash('sha256').update(source).digest('hex').slice(0, 32)}`;

const message = (source: string, workspaceId: string, type: string, timestamp: string, data: Record<string, unknown>): OutgoingMessage => ({
  webhookId: webhookIdOf(source),
  workspaceId,
  type,
  body: JSON.stringify({ type, timestamp: new Date(timestamp).toISOString(), data }),
});

/**
 * The webhook types a session change makes (D-54): a created timer or
 * manual session is `session.started`; a manual session is created closed,
 * so it is also `session.closed`; every close — a request, a new timer, a
 * back-dated close, the maximum duration — is `session.closed`.
 */
export function sessionMessages(change: SessionChangedV1): OutgoingMessage[] {
  const types: WebhookEventType[] = [];
  if (change.change === 'created') {
    types.push('session.started');
    if (change.state === 'closed') types.push('session.closed');
  } else if (change.change === 'paused') types.push('session.paused');
  else if (change.change === 'resumed') types.push('session.resumed');
  else types.push('session.closed');
  const data = {
    session_id: change.sessionId,
    state: change.state,
    source: change.source,
    started_at: new Date(change.startedAt).toISOString(),
    closed_at: change.closedAt ? new Date(change.closedAt).toISOString() : null,
    closed_reason: change.closedReason ?? null,
    member_id: change.memberId,
    workspace_id: change.workspaceId,
  };
  return types.map((type) =>
    message(`session:${change.sessionId}:${change.revision}:${type}`, change.workspaceId, type, change.changedAt, data),
  );
}

/** `plate.item.assigned` (D-54, with `overflowed`); `member_id` is the assignee. */
export function plateMessages(item: PlateItemAssignedV1): OutgoingMessage[] {
  return [
    message(`plate:${item.plateItemId}`, item.workspaceId, 'plate.item.assigned', item.createdAt, {
      plate_item_id: item.plateItemId,
      assignee_id: item.assigneeId,
      assigned_by: item.assignedBy,
      title: item.title,
      plate_date: item.plateDate,
      overflowed: item.overflowed,
      created_at: new Date(item.createdAt).toISOString(),
      member_id: item.assigneeId,
      workspace_id: item.workspaceId,
    }),
  ];
}

/**
 * `member.joined` for a member's first version (every creation path
 * publishes the new member at version 1), `member.deactivated` for a
 * version with `active` off: one of each per member, whatever number of
 * later versions repeat the state.
 */
export function memberMessages(member: MemberV1, now: Date = new Date()): OutgoingMessage[] {
  const data = {
    member_id: member.memberId,
    workspace_id: member.workspaceId,
    kind: member.kind,
    role: member.role,
    display_name: member.displayName,
    email: member.email,
    timezone: member.timezone,
    active: member.active !== false,
  };
  const at = now.toISOString();
  const out: OutgoingMessage[] = [];
  if (member.version === 1) out.push(message(`member:${member.memberId}:joined`, member.workspaceId, 'member.joined', at, data));
  if (member.active === false)
    out.push(message(`member:${member.memberId}:deactivated`, member.workspaceId, 'member.deactivated', at, data));
  return out;
}
