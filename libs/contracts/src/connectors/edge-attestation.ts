import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';

/**
 * Wire formats of webhook verification at the edge (ADR 0011).
 *
 * 1. Sealing a connector's webhook secret for the gateway. The gateway asks
 *    with a fresh X25519 public key; the connectors service answers with the
 *    secret encrypted (AES-256-GCM) under a key derived (HKDF-SHA256) from an
 *    X25519 agreement with its own one-off key. The secret therefore never
 *    travels, nor rests in a Kafka log, in the clear.
 * 2. The edge attestation. When the gateway forwards a reduced form of a
 *    verified delivery (too large for the command topic as it came), it
 *    binds the reduced body to the verified original with an HMAC keyed by a
 *    key derived from the webhook secret: only a holder of the secret can
 *    make one, so the connectors service checks it as it checks a provider
 *    signature and never takes an unverified body.
 */

const SEAL_INFO = 'worktrack webhook secret seal v1';
const ATTESTATION_INFO = 'worktrack edge attestation v1';

export interface SealedSecret {
  /** The sealer's one-off X25519 public key, SPKI DER, base64. */
  publicKey: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

export interface UnsealKey {
  /** The requester's X25519 public key, SPKI DER, base64: goes into the request. */
  publicKey: string;
  privateKey: KeyObject;
}

const publicKeyOf = (base64: string): KeyObject => createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });

const aesKey = (privateKey: KeyObject, peer: KeyObject, salt: string): Buffer =>
  Buffer.from(hkdfSync('sha256', diffieHellman({ privateKey, publicKey: peer }), salt, SEAL_INFO, 32));

/** A fresh key pair for one secret request. */
export function newUnsealKey(): UnsealKey {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return { publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), privateKey };
}

/** Seals `secret` to the requester's public key (base64 SPKI). Throws on a key that is not X25519. */
export function sealSecret(secret: string, requesterPublicKey: string, context: string): SealedSecret {
  const peer = publicKeyOf(requesterPublicKey);
  if (peer.asymmetricKeyType !== 'x25519') throw new Error('not an X25519 key');
  const mine = generateKeyPairSync('x25519');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(mine.privateKey, peer, context), iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return {
    publicKey: mine.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    iv: iv.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
}

/** Opens what `sealSecret` made for `key`; throws when it was not made for it or was altered. */
export function unsealSecret(sealed: SealedSecret, key: UnsealKey, context: string): string {
  const decipher = createDecipheriv(
    'aes-256-gcm',
    aesKey(key.privateKey, publicKeyOf(sealed.publicKey), context),
    Buffer.from(sealed.iv, 'base64'),
  );
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}

/** What an edge attestation covers. */
export interface AttestedDelivery {
  provider: string;
  connectorId: string;
  /** The provider's delivery id (X-GitHub-Delivery), so an attestation cannot be moved to another delivery. */
  deliveryId: string;
  /** SHA-256 (hex) and length of the exact bytes the provider signed. */
  rawSha256: string;
  rawBytes: number;
  /** The forwarded (reduced) body. */
  body: string;
}

export const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

function attestationMac(secret: string, d: AttestedDelivery): Buffer {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), d.connectorId, ATTESTATION_INFO, 32));
  return createHmac('sha256', key)
    .update([d.provider, d.connectorId, d.deliveryId, d.rawSha256, String(d.rawBytes), sha256Hex(d.body)].join('\n'))
    .digest();
}

/** The gateway's attestation (hex) that it verified the original and reduced it to `body`. */
export const attestDelivery = (secret: string, d: AttestedDelivery): string => attestationMac(secret, d).toString('hex');

/** The connectors service's check of an attestation, in constant time. */
export function verifyAttestation(secret: string, d: AttestedDelivery, mac: string): boolean {
  if (secret === '' || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return timingSafeEqual(attestationMac(secret, d), Buffer.from(mac, 'hex'));
}
