import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findSecrets } from '@worktrack/contracts';
import { mapSlackEnvelope } from './slack.mapper';

/**
 * Slack's documented example events (test/fixtures/slack/docs, provenance in
 * PROVENANCE.md there): every one is handled — mapped to the
 * expected type, or ignored with a reason (thread metadata, hidden notices,
 * bots) — and none is refused, since a refusal makes Slack retry and
 * eventually disable the app.
 */
const DIR = join(__dirname, '..', '..', 'test', 'fixtures', 'slack', 'docs');
const expected = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as Record<string, { kind: string; eventType: string | null }>;
const files = readdirSync(DIR).filter((f) => f.endsWith('.json') && f !== 'expected.json');
const receivedAt = new Date('2030-01-01T00:00:00Z');

describe('mapSlackEnvelope on Slack documented examples', () => {
  it('has an expectation for every example', () => {
    expect(files.map((f) => f.replace(/\.json$/, '')).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(files)('%s', (file) => {
    const body = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as unknown;
    const want = expected[file.replace(/\.json$/, '')];
    const outcome = mapSlackEnvelope({ body, account: null, receivedAt });
    expect(outcome.kind).toBe(want.kind);
    if (outcome.kind === 'ignored') expect(outcome.reason).not.toBe('');
    if (outcome.kind === 'mapped') {
      expect(outcome.events).toHaveLength(1);
      expect(outcome.events[0].eventType).toBe(want.eventType);
      expect(findSecrets(outcome.events[0].payload)).toEqual([]);
      // Metadata only (D-36): the message text never travels.
      expect(JSON.stringify(outcome.events[0].payload)).not.toMatch(/Hello|scoop|Was there/);
      // Never "a message by nobody".
      expect(outcome.events[0].payload.user).toEqual(expect.any(String));
    }
  });

  it('reads a message_changed whose inner message lacks user and ts from previous_message', () => {
    const body = JSON.parse(readFileSync(join(DIR, 'message.message_changed-minimal-inner.json'), 'utf8')) as unknown;
    const outcome = mapSlackEnvelope({ body, account: 'U123ABC456', receivedAt });
    if (outcome.kind !== 'mapped') throw new Error(JSON.stringify(outcome));
    expect(outcome.events[0].payload).toMatchObject({ user: 'U123ABC456', ts: '1355517523.000005', channel: 'C123ABC456' });
  });
});
