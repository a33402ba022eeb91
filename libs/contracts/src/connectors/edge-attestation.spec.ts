import { generateKeyPairSync } from 'node:crypto';
import {
  attestDelivery,
  newUnsealKey,
  sealSecret,
  sha256Hex,
  unsealSecret,
  verifyAttestation,
  type AttestedDelivery,
} from './edge-attestation';

describe('edge attestation and sealed secrets (ADR 0011)', () => {
  it('a sealed secret opens only with the requester’s key and its context', () => {
    const key = newUnsealKey();
    const sealed = sealSecret('the-webhook-secret', key.publicKey, 'github:c1');
    expect(JSON.stringify(sealed)).not.toContain('the-webhook-secret');
    expect(unsealSecret(sealed, key, 'github:c1')).toBe('the-webhook-secret');
    expect(() => unsealSecret(sealed, newUnsealKey(), 'github:c1')).toThrow();
    expect(() => unsealSecret(sealed, key, 'github:c2')).toThrow();
    expect(() => unsealSecret({ ...sealed, ciphertext: Buffer.from('tampered').toString('base64') }, key, 'github:c1')).toThrow();
  });

  it('refuses to seal to a key that is not X25519', () => {
    const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    expect(() => sealSecret('s', ed, 'x')).toThrow();
    expect(() => sealSecret('s', 'bm90IGEga2V5', 'x')).toThrow();
  });

  it('an attestation binds secret, connector, delivery, original and reduced body', () => {
    const d: AttestedDelivery = {
      provider: 'github',
      connectorId: 'c1',
      deliveryId: 'd1',
      rawSha256: sha256Hex('raw'),
      rawBytes: 3,
      body: '{"a":1}',
    };
    const mac = attestDelivery('secret', d);
    expect(verifyAttestation('secret', d, mac)).toBe(true);
    expect(verifyAttestation('other', d, mac)).toBe(false);
    for (const change of [
      { connectorId: 'c2' },
      { deliveryId: 'd2' },
      { rawBytes: 4 },
      { body: '{"a":2}' },
      { rawSha256: sha256Hex('x') },
    ]) {
      expect(verifyAttestation('secret', { ...d, ...change }, mac)).toBe(false);
    }
    expect(verifyAttestation('secret', d, 'zz')).toBe(false);
    expect(verifyAttestation('', d, mac)).toBe(false);
  });
});
