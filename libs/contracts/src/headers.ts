/** Kafka header names used on every message (lower-case, `wt-` namespaced). */
export const Header = {
  /** Contract type, e.g. `system.status.query`. */
  type: 'wt-type',
  /** Contract version (integer as a string). */
  version: 'wt-version',
  /** Unique id of this message (idempotency key for consumers). */
  messageId: 'wt-message-id',
  /** The HTTP request id (D-4) that caused this message, for log correlation. */
  requestId: 'wt-request-id',
  /** Request/reply: the id a reply carries back to its request. */
  correlationId: 'wt-correlation-id',
  /** Request/reply: the physical topic the reply must be sent to. */
  replyTo: 'wt-reply-to',
  /** Request/reply: the gateway replica that waits for the reply. */
  replyInstance: 'wt-reply-instance',
  /** Request/reply: epoch ms after which nobody waits for the answer. */
  deadline: 'wt-deadline',
} as const;
