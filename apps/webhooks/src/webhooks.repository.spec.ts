import { streakChanges, type AttemptResult } from './webhooks.repository';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const attempt = (endpointId: string, succeeded: boolean, second: number, disable: string | null = null): AttemptResult => ({
  endpointId,
  webhookId: `msg_${second}`,
  type: 'session.paused',
  statusCode: succeeded ? 204 : 500,
  succeeded,
  durationMs: 5,
  attemptedAt: at(second),
  nextAttemptAt: succeeded ? null : at(second + 5),
  disable,
});

describe('streakChanges (what a run of attempt ends does to endpoint rows)', () => {
  it('a last success ends the streak; failures alone start it at the first', () => {
    expect(streakChanges([attempt('b', false, 1), attempt('b', true, 2)])).toEqual([
      { endpointId: 'b', succeeded: true, reset: true, failingSince: null, disable: null },
    ]);
    expect(streakChanges([attempt('a', false, 1), attempt('a', false, 2)])).toEqual([
      { endpointId: 'a', succeeded: false, reset: false, failingSince: at(1), disable: null },
    ]);
  });

  it('failures after a success start a new streak at the first of them (the row’s older streak ended)', () => {
    expect(streakChanges([attempt('a', false, 1), attempt('a', true, 2), attempt('a', false, 3), attempt('a', false, 4)])).toEqual([
      { endpointId: 'a', succeeded: false, reset: true, failingSince: at(3), disable: null },
    ]);
  });

  it('keeps a disabling, and lists endpoints in id order', () => {
    const changes = streakChanges([
      attempt('c', false, 1, 'the endpoint answered 410 Gone'),
      attempt('a', true, 2),
      attempt('c', false, 3),
    ]);
    expect(changes.map((c) => c.endpointId)).toEqual(['a', 'c']);
    expect(changes[1].disable).toBe('the endpoint answered 410 Gone');
  });
});
