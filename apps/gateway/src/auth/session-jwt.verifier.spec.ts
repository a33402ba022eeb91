import { randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT, type JWTHeaderParameters } from 'jose';
import type { GatewayConfig } from '../gateway.config';
import type { SessionKeys } from './session-keys';
import { SessionJwtVerifier } from './session-jwt.verifier';

const PUBLIC_URL = 'https://app.worktrack.test';

describe('SessionJwtVerifier (D-40)', () => {
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  let keys: { resolve: jest.Mock; has: jest.Mock; inSet: Set<string> };
  let verifier: SessionJwtVerifier;

  const token = (claims: { exp?: number; kid?: string } = {}): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ wid: randomUUID(), sid: randomUUID(), amr: ['pwd'] })
      .setProtectedHeader({ alg: 'ES256', kid: claims.kid ?? 'k1', typ: 'JWT' })
      .setIssuer(PUBLIC_URL)
      .setAudience(`${PUBLIC_URL}/v1`)
      .setSubject(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(claims.exp ?? now + 600)
      .sign(privateKey);
  };

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    const inSet = new Set(['k1']);
    keys = {
      inSet,
      resolve: jest.fn((header: JWTHeaderParameters) => {
        if (!header.kid || !inSet.has(header.kid)) throw new Error('unknown kid');
        return pair.publicKey;
      }),
      has: jest.fn((kid: string) => inSet.has(kid)),
    };
    verifier = new SessionJwtVerifier(keys as unknown as SessionKeys, { PUBLIC_URL } as GatewayConfig);
  });

  beforeEach(() => keys.resolve.mockClear());

  it('verifies a token once: the same string again is a lookup with the same claims', async () => {
    const jwt = await token();
    const first = await verifier.verify(jwt);
    const again = await verifier.verify(jwt);
    expect(again).toEqual(first);
    expect(keys.resolve).toHaveBeenCalledTimes(1);
  });

  it('verifies again, and refuses, once the signing key has left the set', async () => {
    const jwt = await token({ kid: 'k2' });
    keys.inSet.add('k2');
    await verifier.verify(jwt);
    keys.inSet.delete('k2');
    await expect(verifier.verify(jwt)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(keys.resolve).toHaveBeenCalledTimes(2);
  });

  it('refuses a remembered token after its exp (plus the tolerance)', async () => {
    const jwt = await token({ exp: Math.floor(Date.now() / 1000) + 60 });
    await verifier.verify(jwt);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    jest.setSystemTime(Date.now() + 66_000);
    try {
      await expect(verifier.verify(jwt)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('never remembers a refused token: a tampered signature is refused every time', async () => {
    const jwt = await token();
    const tampered = jwt.slice(0, -4) + (jwt.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expect(verifier.verify(tampered)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(verifier.verify(tampered)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(keys.resolve).toHaveBeenCalledTimes(2);
  });
});
