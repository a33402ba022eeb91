import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE_HEADER = /^sha256=([0-9a-fA-F]{64})$/;

/**
 * Checks GitHub's `X-Hub-Signature-256` header (D-36): `sha256=` and the hex
 * HMAC-SHA256 of the raw request bytes, keyed with the webhook secret,
 * compared in constant time. A missing or malformed header, or an empty
 * secret, is simply not valid — this never throws.
 *
 * Hand-written rather than taken from `@octokit/webhooks-methods`: v6 of that
 * package is ESM-only with import-only exports, which our CommonJS build
 * cannot `require`. The algorithm is the one GitHub documents under
 * "Validating webhook deliveries".
 */
export function verifyGithubSignature(secret: string, header: string | undefined, rawBody: Buffer): boolean {
  const match = header === undefined ? null : SIGNATURE_HEADER.exec(header.trim());
  if (match === null || secret === '') return false;
  const given = Buffer.from(match[1], 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}
