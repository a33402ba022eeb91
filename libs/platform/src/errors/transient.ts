/**
 * Failures of a dependency that a retry may not meet: a Postgres connection
 * terminated by an operator or a failover (SQLSTATE class 08, 57P01–57P03),
 * too many connections (53300), a serialization failure or deadlock (40001,
 * 40P01), a connection TypeORM had to release mid-transaction, a socket reset or refused, a pool that cannot connect in time, a
 * broker that lost leadership. Such a failure is the service being briefly
 * unavailable, not a bug: callers get UNAVAILABLE (503 with Retry-After) and
 * retry with the same key (D-2), instead of an INTERNAL 500.
 */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);
const TRANSIENT_SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const TRANSIENT_MESSAGES = [
  /^Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Connection is closed/i,
  /terminating connection due to administrator command/i,
  // TypeORM, when the pool dropped the connection under a transaction (a terminated backend): the COMMIT was never sent.
  /Query runner already released/i,
  /connection provided by a query runner was already released/i,
];
const TRANSIENT_KAFKA = new Set([
  'KafkaJSConnectionError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound',
  'KafkaJSConnectionClosedError',
  'KafkaJSLockTimeout',
]);
const TRANSIENT_KAFKA_TYPES = new Set([
  'NOT_LEADER_FOR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'REQUEST_TIMED_OUT',
  'NOT_COORDINATOR',
  'COORDINATOR_NOT_AVAILABLE',
]);

export function isTransientInfrastructureError(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const e = err as Record<string, unknown>;
  if (typeof e.code === 'string' && (TRANSIENT_SQLSTATES.has(e.code) || e.code.startsWith('08') || TRANSIENT_SOCKET_CODES.has(e.code)))
    return true;
  if (typeof e.name === 'string' && TRANSIENT_KAFKA.has(e.name)) return true;
  if (typeof e.type === 'string' && TRANSIENT_KAFKA_TYPES.has(e.type)) return true;
  if (typeof e.message === 'string' && TRANSIENT_MESSAGES.some((re) => re.test(e.message as string))) return true;
  return [e.driverError, e.cause, e.originalError].some((inner) => isTransientInfrastructureError(inner, depth + 1));
}

export const TRANSIENT_MESSAGE = 'A dependency of the service is briefly unavailable; retry with the same key.';
