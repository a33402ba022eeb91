import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Provider signature checks at the edge (ADR 0011), the same
 * algorithms the connectors service applies (D-36): GitHub's
 * `X-Hub-Signature-256` (`sha256=` + hex HMAC-SHA256 of the raw bytes) and
 * Slack's v0 signature (HMAC-SHA256 over `v0:<timestamp>:<raw body>`, the
 * timestamp within 5 minutes). Both compare in constant time and never throw.
 * The messages are the connectors service's, so a refusal reads the same
 * wherever it happens.
 */
export type HookCheck = { ok: true } | { ok: false; message: string };

const GITHUB_SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
const SLACK_SIGNATURE = /^v0=([0-9a-fA-F]{64})$/;
const SLACK_TIMESTAMP = /^\d{1,12}$/;
/** D-36: Slack's replay window. */
export const SLACK_REPLAY_WINDOW_SECONDS = 300;

const equalHex = (hex: string, expected: Buffer): boolean => {
  const given = Buffer.from(hex, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
};

export function checkGithub(secret: string, header: string | undefined, raw: Buffer): HookCheck {
  const match = header === undefined ? null : GITHUB_SIGNATURE.exec(header.trim());
  if (match === null || secret === '' || !equalHex(match[1], createHmac('sha256', secret).update(raw).digest())) {
    return { ok: false, message: 'X-Hub-Signature-256 is missing or does not match the webhook secret.' };
  }
  return { ok: true };
}

export function checkSlack(
  secret: string,
  timestamp: string | undefined,
  signature: string | undefined,
  raw: Buffer,
  now: Date,
): HookCheck {
  if (timestamp === undefined || !signature || !SLACK_TIMESTAMP.test(timestamp)) {
    return { ok: false, message: 'X-Slack-Signature or X-Slack-Request-Timestamp is missing.' };
  }
  if (Math.abs(now.getTime() - Number(timestamp) * 1000) > SLACK_REPLAY_WINDOW_SECONDS * 1000) {
    return { ok: false, message: 'X-Slack-Request-Timestamp is outside the 5-minute window (replay protection).' };
  }
  const match = SLACK_SIGNATURE.exec(signature);
  const expected = createHmac('sha256', secret).update(`v0:${timestamp}:`).update(raw).digest();
  if (match === null || secret === '' || !equalHex(match[1], expected)) {
    return { ok: false, message: 'X-Slack-Signature does not match the signing secret.' };
  }
  return { ok: true };
}
