import { createHmac, timingSafeEqual } from 'node:crypto';

/** D-36: a request older or newer than this (in seconds) is refused as a possible replay. */
export const SLACK_REPLAY_WINDOW_SECONDS = 300;

export interface SlackSignatureInput {
  signingSecret: string;
  /** `X-Slack-Request-Timestamp`: unix seconds. */
  timestamp: string | undefined;
  /** `X-Slack-Signature`: `v0=<hex HMAC-SHA256>`. */
  signature: string | undefined;
  rawBody: Buffer;
  now: Date;
}

export type SlackSignatureResult = { ok: true } | { ok: false; reason: 'missing' | 'stale' | 'mismatch' };

const TIMESTAMP = /^\d{1,12}$/;
const SIGNATURE = /^v0=([0-9a-fA-F]{64})$/;

/**
 * Checks Slack's v0 request signature (D-36): HMAC-SHA256, keyed with the
 * app's signing secret, over `v0:<timestamp>:<raw body>`, compared in
 * constant time. `missing`: a header is absent or the timestamp is not unix
 * seconds. `stale`: the timestamp is more than SLACK_REPLAY_WINDOW_SECONDS
 * from `now`, either way — checked before any hashing. `mismatch`: the
 * signature is malformed or wrong.
 *
 * Hand-written because there is no maintained standalone package for it:
 * `@slack/events-api` (which had one) is deprecated, and `@slack/bolt` is a
 * whole app framework. The algorithm is the one Slack documents under
 * "Verifying requests from Slack".
 */
export function verifySlackSignature(input: SlackSignatureInput): SlackSignatureResult {
  const { signingSecret, timestamp, signature, rawBody, now } = input;
  if (timestamp === undefined || !signature || !TIMESTAMP.test(timestamp)) return { ok: false, reason: 'missing' };
  if (Math.abs(now.getTime() - Number(timestamp) * 1000) > SLACK_REPLAY_WINDOW_SECONDS * 1000) return { ok: false, reason: 'stale' };
  const match = SIGNATURE.exec(signature);
  if (match === null || signingSecret === '') return { ok: false, reason: 'mismatch' };
  const given = Buffer.from(match[1], 'hex');
  const expected = createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected) ? { ok: true } : { ok: false, reason: 'mismatch' };
}
