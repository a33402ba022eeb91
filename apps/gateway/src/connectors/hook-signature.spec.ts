import { createHmac } from 'node:crypto';
import { checkGithub, checkSlack, type HookCheck } from './hook-signature';

const raw = Buffer.from('{"zen":"Design for failure."}');
const gh = (secret: string, body: Buffer) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const slack = (secret: string, ts: string, body: Buffer) =>
  `v0=${createHmac('sha256', secret).update(`v0:${ts}:`).update(body).digest('hex')}`;

describe('edge signature checks (D-36)', () => {
  it('GitHub: accepts the right HMAC over the exact bytes only', () => {
    expect(checkGithub('s3cret', gh('s3cret', raw), raw)).toEqual({ ok: true });
    expect(checkGithub('s3cret', gh('s3cret', raw).toUpperCase().replace('SHA256', 'sha256'), raw)).toEqual({ ok: true });
    for (const header of [undefined, '', 'sha256=00', gh('other', raw), gh('s3cret', Buffer.concat([raw, Buffer.from(' ')]))]) {
      expect(checkGithub('s3cret', header, raw).ok).toBe(false);
    }
    expect(checkGithub('', gh('', raw), raw).ok).toBe(false);
  });

  it('Slack: v0 signature within the 5-minute window', () => {
    const now = new Date('2026-11-24T04:00:00Z');
    const ts = String(now.getTime() / 1000);
    expect(checkSlack('sig', ts, slack('sig', ts, raw), raw, now)).toEqual({ ok: true });
    const message = (r: HookCheck): string => (r.ok ? 'ok' : r.message);
    expect(message(checkSlack('sig', undefined, slack('sig', ts, raw), raw, now))).toMatch(/missing/);
    const old = String(now.getTime() / 1000 - 301);
    expect(message(checkSlack('sig', old, slack('sig', old, raw), raw, now))).toMatch(/window/);
    expect(message(checkSlack('sig', ts, slack('other', ts, raw), raw, now))).toMatch(/does not match/);
  });
});
