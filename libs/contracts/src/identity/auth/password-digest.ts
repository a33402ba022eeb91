import { createHash } from 'node:crypto';

/** D-39: a password's length rules (code points). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/**
 * The form a password travels in between the gateway and identity: a SHA-256
 * under a domain prefix, so the password a person may reuse elsewhere never
 * reaches Kafka or identity's logs. Identity stores only argon2id of it.
 */
export const passwordDigest = (password: string): string =>
  createHash('sha256').update('worktrack.password.v1\u0000', 'utf8').update(password, 'utf8').digest('hex');

/** The SHA-256 of a high-entropy secret (refresh, invite, recovery code) in hex: the only form that travels or is stored. */
export const secretSha256 = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');
