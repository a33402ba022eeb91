import { createHmac, randomBytes } from 'node:crypto';

/** D-53: `whsec_` and the base64 of 32 random bytes. */
export const newEndpointSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * D-55, the Standard Webhooks signature: `v1,` and the base64 HMAC-SHA256,
 * keyed by the secret's bytes, of `<webhook-id>.<webhook-timestamp>.<body>`.
 * Several secrets (a rotation's overlap) give several signatures, separated
 * by a space; a receiver accepts the message when any of them verifies.
 */
export function signatureHeader(secrets: readonly string[], webhookId: string, timestamp: number, body: string): string {
  const content = `${webhookId}.${timestamp}.${body}`;
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
          .update(content)
          .digest('base64')}`,
    )
    .join(' ');
}
