import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { StartSessionV1 } from '@worktrack/contracts';

/**
 * A new session's id: a UUIDv7 (time-ordered, so the primary-key index grows
 * at its end) whose random bits come from the command's message id. A
 * command redelivered by Kafka carries the same message id and time of
 * receipt, so it names the same session and starts nothing twice.
 */
export function sessionIdFor(requestedAtMs: number, messageId: string): string {
  const random = createHash('sha256').update(`session:${messageId}`).digest().subarray(0, 16);
  return uuidv7({ msecs: requestedAtMs, random: Uint8Array.from(random) });
}

const instant = (value: string | undefined): string | null => (value === undefined ? null : new Date(value).toISOString());
const uuid = (value: string | undefined): string | null => (value === undefined ? null : value.toLowerCase());

/**
 * D-28: what "the same body" means for an idempotency key — the same fields
 * with the same meaning: a field left out equals null, uuids ignore case, and
 * times are compared as instants (millisecond precision, whatever the offset).
 */
export function startBodyHash(c: StartSessionV1): string {
  const canonical = JSON.stringify([
    c.source,
    c.intentText,
    uuid(c.goalId),
    uuid(c.taskId),
    uuid(c.projectId),
    c.estimatedDurationMin ?? null,
    instant(c.startedAt),
    instant(c.endedAt),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
