import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { formatApiToken } from '@worktrack/contracts';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random characters (randomInt rejects biased values). */
const randomString = (alphabet: string, length: number): string =>
  Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');

/** D-8: a public id (8 base32 chars, 40 bits) and a secret (43 base62 chars, ~256 bits). */
export function newTokenParts(): { tokenId: string; secret: string; token: string } {
  const tokenId = randomString(BASE32, 8);
  const secret = randomString(BASE62, 43);
  return { tokenId, secret, token: formatApiToken(tokenId, secret) };
}

/** The secret is high-entropy, so a plain SHA-256 is the right stored form (no slow KDF needed). */
export const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time comparison of the stored hash with the presented one. */
export function hashesMatch(stored: Buffer, presentedHex: string): boolean {
  const presented = Buffer.from(presentedHex, 'hex');
  if (presented.length !== stored.length) {
    timingSafeEqual(stored, stored); // same work either way
    return false;
  }
  return timingSafeEqual(stored, presented);
}
