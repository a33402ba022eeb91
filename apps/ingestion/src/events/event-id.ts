import { hash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/**
 * A UUIDv7 (time-ordered, so the primary-key index grows at its end) whose
 * random bits come from the command's message id and the event's index: a
 * command redelivered by Kafka produces the same ids, so its events are not
 * stored twice even without an external_id.
 */
export function eventId(receivedAtMs: number, messageId: string, index: number): string {
  // crypto.hash: the same SHA-256 as createHash().update().digest() without a Hash object per event.
  const random = hash('sha256', `${messageId}:${index}`, 'buffer').subarray(0, 16);
  return uuidv7({ msecs: receivedAtMs, random: Uint8Array.from(random) });
}
