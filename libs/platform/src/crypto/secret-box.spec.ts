import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

const key = (): string => randomBytes(32).toString('base64');

describe('SecretBox (connector secrets at rest, D-36)', () => {
  const ring = `k1:${key()}`;

  it('round-trips and never holds the plaintext', () => {
    const box = new SecretBox(ring);
    const sealed = box.seal('whsec-very-secret');
    expect(sealed).not.toContain('whsec');
    expect(sealed.startsWith('v1.k1.')).toBe(true);
    expect(box.open(sealed)).toBe('whsec-very-secret');
  });

  it('uses a fresh IV per value', () => {
    const box = new SecretBox(ring);
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('refuses a tampered value', () => {
    const box = new SecretBox(ring);
    const parts = box.seal('abc').split('.');
    const body = Buffer.from(parts[4], 'base64url');
    body[0] ^= 1;
    parts[4] = body.toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('rotates: the first key encrypts, older keys still decrypt', () => {
    const old = new SecretBox(ring);
    const sealedWithOld = old.seal('x');
    const rotated = new SecretBox(`k2:${key()},${ring}`);
    expect(rotated.open(sealedWithOld)).toBe('x');
    expect(rotated.seal('y').startsWith('v1.k2.')).toBe(true);
    expect(() => old.open(rotated.seal('y'))).toThrow(/k2/);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => new SecretBox(`k:${randomBytes(16).toString('base64')}`)).toThrow(/32 bytes/);
  });
});
