import { loadFixture, signGithub } from '../../test/fixtures/fixtures';
import { verifyGithubSignature } from './github-signature';

const secret = "It's a Secret to Everybody";
const { raw } = loadFixture('github', 'push');

describe('verifyGithubSignature (X-Hub-Signature-256, D-36)', () => {
  it("matches GitHub's documented test vector", () => {
    // From GitHub's "Validating webhook deliveries" docs.
    const header = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(verifyGithubSignature(secret, header, Buffer.from('Hello, World!'))).toBe(true);
  });

  it('accepts the signature of the exact raw body', () => {
    expect(verifyGithubSignature(secret, signGithub(secret, raw), raw)).toBe(true);
  });

  it('accepts upper-case hex', () => {
    const header = signGithub(secret, raw);
    expect(verifyGithubSignature(secret, `sha256=${header.slice(7).toUpperCase()}`, raw)).toBe(true);
  });

  it('refuses a tampered body, even by one byte or re-serialised JSON', () => {
    const header = signGithub(secret, raw);
    const tampered = Buffer.from(raw);
    tampered[10] ^= 1;
    expect(verifyGithubSignature(secret, header, tampered)).toBe(false);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8'))));
    expect(verifyGithubSignature(secret, header, reserialised)).toBe(false);
  });

  it('refuses a signature made with another secret, and an empty secret', () => {
    expect(verifyGithubSignature(secret, signGithub('another secret', raw), raw)).toBe(false);
    expect(verifyGithubSignature('', signGithub('', raw), raw)).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['without the prefix', signGithub(secret, raw).slice(7)],
    ['the legacy sha1 header', `sha1=${'a'.repeat(40)}`],
    ['too short', signGithub(secret, raw).slice(0, -2)],
    ['too long', `${signGithub(secret, raw)}00`],
    ['not hex', `sha256=${'z'.repeat(64)}`],
    ['odd characters in the hex', `sha256=${'0'.repeat(63)}g`],
  ])('refuses a header that is %s, without throwing', (_label, header) => {
    expect(verifyGithubSignature(secret, header, raw)).toBe(false);
  });
});
