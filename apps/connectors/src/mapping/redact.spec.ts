import { findSecrets } from '@worktrack/contracts';
import { REDACTED, redactSecrets } from './redact';

describe('redactSecrets (D-36, D-18)', () => {
  const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;

  it('replaces secret-looking strings and drops secret-looking keys, keeping the rest', () => {
    const { payload, redacted } = redactSecrets({ title: `fix ${token}`, ref: 'main', nested: { list: ['ok', token] }, [token]: 1, n: 3 });
    expect(payload).toEqual({ title: REDACTED, ref: 'main', nested: { list: ['ok', REDACTED] }, n: 3 });
    expect(redacted).toBe(3);
    expect(findSecrets(payload)).toEqual([]);
  });

  it('leaves a clean payload untouched', () => {
    const input = { repository: 'acme/api', commit_count: 2, forced: false, url: null };
    expect(redactSecrets(input)).toEqual({ payload: input, redacted: 0 });
  });
});
