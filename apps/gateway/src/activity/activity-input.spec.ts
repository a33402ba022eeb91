import { DomainError } from '@worktrack/platform';
import { parseActivityInput } from './activity-input';

const now = new Date('2026-06-01T12:00:00.000Z');
const fail = (body: unknown): DomainError => {
  try {
    parseActivityInput(body, now);
  } catch (e) {
    return e as DomainError;
  }
  throw new Error('expected a failure');
};

describe('parseActivityInput (spec ActivityEvent, D-17 … D-19)', () => {
  it('takes one event and applies the defaults', () => {
    expect(parseActivityInput({ event_type: 'deploy' }, now)).toEqual([
      { sourceType: 'custom', eventType: 'deploy', occurredAt: '2026-06-01T12:00:00.000Z', payload: {} },
    ]);
  });

  it('takes a batch, keeping order, offsets and external ids; unknown pairs are fine', () => {
    const events = parseActivityInput(
      {
        events: [
          {
            event_type: 'x.y-z_1',
            source_type: 'desktop',
            occurred_at: '2026-06-01T14:00:00+02:00',
            external_id: 'e1',
            payload: { a: [1, { b: 'c' }] },
          },
          { event_type: 'cron.run' },
        ],
      },
      now,
    );
    expect(events[0]).toEqual({
      sourceType: 'desktop',
      eventType: 'x.y-z_1',
      occurredAt: '2026-06-01T14:00:00+02:00',
      externalId: 'e1',
      payload: { a: [1, { b: 'c' }] },
    });
    expect(events[1].eventType).toBe('cron.run');
  });

  it('rejects the whole batch naming every bad index (D-17)', () => {
    const err = fail({
      events: [
        { event_type: 'ok' },
        { event_type: 'Bad Type' },
        { event_type: 'ok', source_type: 'x'.repeat(65) },
        { event_type: 'ok', external_id: 'e'.repeat(257), surprise: true },
        { event_type: 'ok', occurred_at: '2026-06-01 12:00' },
        { event_type: 'ok', payload: [1, 2] },
      ],
    });
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details?.map((d) => d.path).sort()).toEqual([
      'events[1].event_type',
      'events[2].source_type',
      'events[3].external_id',
      'events[3].surprise',
      'events[4].occurred_at',
      'events[5].payload',
    ]);
  });

  it.each([
    ['no events', { events: [] }, 'events'],
    ['101 events', { events: Array.from({ length: 101 }, () => ({ event_type: 'a' })) }, 'events'],
    ['a missing event_type', { payload: {} }, 'event_type'],
    ['an unknown top-level field', { event_type: 'a', extra: 1 }, 'extra'],
    ['an occurred_at without offset', { event_type: 'a', occurred_at: '2026-06-01T12:00:00' }, 'occurred_at'],
  ])('rejects %s', (_name, body, path) => {
    const err = fail(body);
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details?.map((d) => d.path)).toContain(path);
  });

  it('measures the payload in UTF-8 bytes (D-18)', () => {
    const fits = { s: 'é'.repeat((32_768 - '{"s":""}'.length) / 2) }; // 2 bytes each
    expect(parseActivityInput({ event_type: 'a', payload: fits }, now)).toHaveLength(1);
    const over = { s: `${fits.s}x` };
    expect(fail({ event_type: 'a', payload: over }).details).toEqual([
      { path: 'payload', issue: 'payload is 32769 bytes as UTF-8 JSON; at most 32768' },
    ]);
  });

  it('bounds occurred_at at 10 minutes ahead, any past time is fine (D-19)', () => {
    expect(parseActivityInput({ event_type: 'a', occurred_at: '2026-06-01T12:10:00Z' }, now)).toHaveLength(1);
    expect(parseActivityInput({ event_type: 'a', occurred_at: '1999-01-01T00:00:00Z' }, now)).toHaveLength(1);
    expect(fail({ event_type: 'a', occurred_at: '2026-06-01T12:10:00.001Z' }).details?.[0].path).toBe('occurred_at');
  });

  it.each([
    ['our own token', { t: `wt_abcdefgh_${'A'.repeat(43)}` }, 'payload.t'],
    ['a private key block', { k: '-----BEGIN RSA PRIVATE KEY-----\nMIIE' }, 'payload.k'],
    ['a GitHub token', { nested: { list: ['ok', 'ghp_0123456789abcdefghij'] } }, 'payload.nested.list[1]'],
    ['a fine-grained GitHub token', { x: 'github_pat_11ABCDEFG0123456789' }, 'payload.x'],
    ['a Slack bot token', { 'odd key': 'xoxb-1234567890-abcdef' }, 'payload["odd key"]'],
    ['an AWS key id', { aws: 'AKIAABCDEFGHIJKLMNOP' }, 'payload.aws'],
    ['a Stripe live key', { s: 'sk_live_0123456789abcdef' }, 'payload.s'],
  ])('refuses %s with PAYLOAD_CONTAINS_SECRET naming the path', (_name, payload, path) => {
    const err = fail({ events: [{ event_type: 'ok' }, { event_type: 'a', payload }] });
    expect(err.code).toBe('PAYLOAD_CONTAINS_SECRET');
    expect(err.details?.map((d) => d.path)).toEqual([`events[1].${path}`]);
  });

  it('lets look-alikes through', () => {
    expect(
      parseActivityInput({ event_type: 'a', payload: { note: 'wt_ is our prefix; ghp_ too; sk_test_123 is fine; AKIA alone' } }, now),
    ).toHaveLength(1);
  });
});
