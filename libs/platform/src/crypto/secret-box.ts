import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const VERSION = 'v1';

/**
 * Seals secrets at rest — connector secrets (D-36), webhook endpoint secrets
 * (D-53), identity's TOTP secrets and generated signing keys (D-42): never
 * stored in the clear. AES-256-GCM with a random 96-bit IV per value; the
 * stored form `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts) names
 * the key, so keys rotate: the ring's first key encrypts, every key decrypts.
 * A tampered value fails authentication instead of decrypting to garbage.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly current: string;

  /** `ring`: `id:base64key[,id:base64key…]`; `ringName`: the variable it comes from, for errors (never its value). */
  constructor(
    ring: string,
    private readonly ringName = 'the key ring',
  ) {
    const entries = ring.split(',').map((entry): [string, Buffer] => {
      const [id, key] = entry.split(':');
      const bytes = Buffer.from(key ?? '', 'base64');
      if (!id || bytes.length !== 32) throw new Error(`secret key "${id ?? ''}" must be 32 bytes, base64`);
      return [id, bytes];
    });
    this.keys = new Map(entries);
    this.current = entries[0][0];
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv(ALGORITHM, this.key(this.current), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.current, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, keyId, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !keyId || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('not a sealed secret');
    }
    const decipher = createDecipheriv(ALGORITHM, this.key(keyId), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  private key(id: string): Buffer {
    const key = this.keys.get(id);
    if (!key) throw new Error(`secret key "${id}" is not in ${this.ringName}`);
    return key;
  }
}
