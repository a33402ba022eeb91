import { loadFixture, signSlack } from '../../test/fixtures/fixtures';
import { SLACK_REPLAY_WINDOW_SECONDS, verifySlackSignature } from './slack-signature';

const signingSecret = '8f742231b10e8888abcd99yyyzzz85a5';
const { raw } = loadFixture('slack', 'message');
const nowSeconds = 1778749322;
const now = new Date(nowSeconds * 1000);
const check = (over: {
  timestamp?: string | undefined;
  signature?: string | undefined;
  rawBody?: Buffer;
  now?: Date;
  signingSecret?: string;
}) =>
  verifySlackSignature({
    signingSecret,
    timestamp: String(nowSeconds),
    signature: signSlack(signingSecret, nowSeconds, raw),
    rawBody: raw,
    now,
    ...over,
  });

describe('verifySlackSignature (Slack v0 signing, D-36)', () => {
  it('has a five-minute replay window', () => {
    expect(SLACK_REPLAY_WINDOW_SECONDS).toBe(300);
  });

  it("matches Slack's documented example", () => {
    // From Slack's "Verifying requests from Slack" docs.
    const body = Buffer.from(
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    );
    const result = verifySlackSignature({
      signingSecret,
      timestamp: '1531420618',
      signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
      rawBody: body,
      now: new Date(1531420618 * 1000),
    });
    expect(result).toEqual({ ok: true });
  });

  it('accepts a fresh, correctly signed request', () => {
    expect(check({})).toEqual({ ok: true });
  });

  it('refuses a tampered body', () => {
    const tampered = Buffer.from(raw.toString('utf8').replace('"channel_type": "channel"', '"channel_type": "im"'));
    expect(tampered.equals(raw)).toBe(false);
    expect(check({ rawBody: tampered })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuses another secret, a timestamp the signature does not cover, and an empty secret', () => {
    expect(check({ signature: signSlack('another secret', nowSeconds, raw) })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ timestamp: String(nowSeconds - 1) })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ signingSecret: '', signature: signSlack('', nowSeconds, raw) })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it.each([
    ['too short', signSlack(signingSecret, nowSeconds, raw).slice(0, -2)],
    ['too long', `${signSlack(signingSecret, nowSeconds, raw)}ab`],
    ['not hex', `v0=${'x'.repeat(64)}`],
    ['of another version', signSlack(signingSecret, nowSeconds, raw).replace('v0=', 'v1=')],
    ['without the version', signSlack(signingSecret, nowSeconds, raw).slice(3)],
  ])('calls a signature that is %s a mismatch, without throwing', (_label, signature) => {
    expect(check({ signature })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it.each([
    ['no timestamp', { timestamp: undefined }],
    ['no signature', { signature: undefined }],
    ['an empty signature', { signature: '' }],
    ['an empty timestamp', { timestamp: '' }],
    ['a timestamp that is not unix seconds', { timestamp: '2026-05-14T09:02:02Z' }],
    ['a negative timestamp', { timestamp: '-1778749322' }],
  ])('calls %s missing', (_label, over) => {
    expect(check(over)).toEqual({ ok: false, reason: 'missing' });
  });

  it('calls a timestamp more than 300 s old or ahead stale, before checking the signature', () => {
    const old = nowSeconds - 301;
    const ahead = nowSeconds + 301;
    expect(check({ timestamp: String(old), signature: signSlack(signingSecret, old, raw) })).toEqual({ ok: false, reason: 'stale' });
    expect(check({ timestamp: String(ahead), signature: signSlack(signingSecret, ahead, raw) })).toEqual({ ok: false, reason: 'stale' });
    // Stale wins over a bad signature: nothing is hashed for a replay.
    expect(check({ timestamp: String(old), signature: 'v0=nonsense' })).toEqual({ ok: false, reason: 'stale' });
  });

  it('accepts a timestamp exactly 300 s away in either direction, and refuses one a millisecond further', () => {
    for (const ts of [nowSeconds - 300, nowSeconds + 300]) {
      expect(check({ timestamp: String(ts), signature: signSlack(signingSecret, ts, raw) })).toEqual({ ok: true });
    }
    const ts = nowSeconds - 300;
    const later = new Date(now.getTime() + 1);
    expect(check({ timestamp: String(ts), signature: signSlack(signingSecret, ts, raw), now: later })).toEqual({
      ok: false,
      reason: 'stale',
    });
  });
});
