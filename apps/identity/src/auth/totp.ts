import { Secret, TOTP } from 'otpauth';

/** D-42: RFC 6238, SHA-1, 30 s, 6 digits. */
const PERIOD = 30;

export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

export function totpUri(secretBase32: string, issuer: string, label: string): string {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secretBase32) }).toString();
}

/**
 * The time step `code` matches (one step of drift either way), or null. A
 * step at or before `lastStep` is refused: a code is accepted once.
 */
export function acceptTotp(secretBase32: string, code: string, lastStep: number | null, now = Date.now()): number | null {
  const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secretBase32) });
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD) + delta;
  return lastStep !== null && step <= lastStep ? null : step;
}

/** The current code (tests and the CLI's enrolment helper). */
export const totpNow = (secretBase32: string, now = Date.now()): string =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secretBase32) }).generate({ timestamp: now });
