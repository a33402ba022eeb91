import { parseInvocation, UsageError } from './args';
import { normaliseUrl, targetOf } from './cli';

describe('worktrack command line', () => {
  it('parses the issue examples', () => {
    expect(parseInvocation(['event', 'deploy', '--source', 'ci', '--external-id', '123', '--payload', '{"env":"prod"}'])).toEqual({
      url: undefined,
      token: undefined,
      json: false,
      command: { kind: 'event', eventType: 'deploy', source: 'ci', externalId: '123', payload: { env: 'prod' }, occurredAt: undefined },
    });
    expect(parseInvocation(['session', 'start', 'write the CLI']).command).toMatchObject({
      kind: 'session-start',
      intent: 'write the CLI',
    });
    expect(parseInvocation(['session', 'close']).command).toEqual({
      kind: 'session-close',
      sessionId: undefined,
      note: undefined,
      closedAt: undefined,
    });
    const member = '0D9C5A52-1E57-4F0B-9C62-6B0C1E3A1B2C';
    expect(parseInvocation(['plate', 'assign', member, 'review']).command).toEqual({
      kind: 'plate-assign',
      assignee: member.toLowerCase(),
      title: 'review',
      date: undefined,
    });
    expect(parseInvocation(['--json', 'me', '--url', 'http://x', '--token', 't'])).toEqual({
      url: 'http://x',
      token: 't',
      json: true,
      command: { kind: 'me' },
    });
    expect(parseInvocation(['event', '--batch', '--source', 'cron']).command).toEqual({ kind: 'event-batch', source: 'cron' });
    expect(parseInvocation(['flush']).command).toEqual({ kind: 'flush' });
  });

  it('parses usage report and list (D-45, D-48)', () => {
    expect(
      parseInvocation([
        'usage',
        'report',
        'anthropic',
        'claude-sonnet-4-5',
        '--input',
        '1200',
        '--cache-read',
        '800',
        '--output',
        '300',
        '--cost',
        '0.0042',
        '--external-id',
        'msg_1',
      ]).command,
    ).toEqual({
      kind: 'usage-report',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      externalId: 'msg_1',
      operation: undefined,
      tokens: { input: 1200, output: 300, cacheRead: 800, cacheCreation: undefined, reasoning: undefined },
      cost: '0.0042',
      sessionId: undefined,
      occurredAt: undefined,
    });
    expect(parseInvocation(['usage', '--provider', 'openai', '--limit', '5']).command).toMatchObject({
      kind: 'usage-list',
      provider: 'openai',
      limit: 5,
    });
    expect(parseInvocation(['usage', 'list']).command).toMatchObject({ kind: 'usage-list' });
    for (const bad of [
      ['usage', 'report', 'anthropic', 'm', '--input', '-1'],
      ['usage', 'report', 'anthropic', 'm', '--input', '1.5'],
      ['usage', 'report', 'anthropic', 'm', '--cost', '0.0000000001'],
      ['usage', 'report', 'anthropic', 'm', '--cost', '1e-3'],
      ['usage', 'report', 'anthropic'],
      ['usage', 'list', '--input', '3'],
      ['usage', 'list', '--limit', '101'],
    ]) {
      expect(() => parseInvocation(bad)).toThrow(UsageError);
    }
  });

  it('prints help with the exit codes', () => {
    const help = parseInvocation(['--help']).command;
    expect(help.kind).toBe('help');
    expect(help.kind === 'help' && help.text).toMatch(/6 +API unreachable: events kept in the offline queue/);
  });

  it.each([
    [[], /a command is required/],
    [['nope'], /unknown command "nope"/],
    [['event'], /usage: worktrack event <event_type>/],
    [['event', 'deploy', '--payload', '[1]'], /--payload must be a JSON object/],
    [['event', 'deploy', '--payload', '{'], /--payload is not valid JSON/],
    [['event', 'deploy', '--occurred-at', '2026-05-01 10:00'], /RFC 3339/],
    [['event', 'deploy', '--date', '2026-05-01'], /--date does not apply to `event`/],
    [['event', 'deploy', '--bogus'], /Unknown option '--bogus'/],
    [['event', '--batch', 'x'], /usage: worktrack event --batch/],
    [['session', 'start'], /usage: worktrack session start/],
    [['session', 'start', '  '], /intent must not be empty/],
    [['session', 'start', 'x', '--estimate', '1.5'], /whole number of minutes/],
    [['session', 'pause', 'not-a-uuid'], /session_id must be a UUID/],
    [['session', 'jump'], /session start\|pause\|resume\|close/],
    [['plate', 'assign', 'bob', 'title'], /member_id must be a UUID/],
    [['plate', '--date', 'tomorrow'], /YYYY-MM-DD/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseInvocation(argv)).toThrow(UsageError);
    expect(() => parseInvocation(argv)).toThrow(message);
  });

  it('takes the API URL with or without /v1', () => {
    expect(normaliseUrl('http://localhost:3000')).toBe('http://localhost:3000');
    expect(normaliseUrl('http://localhost:3000/v1/')).toBe('http://localhost:3000');
    expect(normaliseUrl('https://wt.example/api/v1')).toBe('https://wt.example/api');
    expect(() => normaliseUrl('localhost:3000')).toThrow(UsageError);
  });

  it('names the queue target without storing the secret', () => {
    expect(targetOf('http://a', `wt_abcdefgh_${'x'.repeat(43)}`)).toBe('http://a wt_abcdefgh');
    const jwt = ['e30', Buffer.from(JSON.stringify({ sub: 'm1', wid: 'w1' })).toString('base64url'), 'sig'].join('.');
    expect(targetOf('http://a', jwt)).toBe('http://a jwt:w1:m1');
    expect(targetOf('http://a', 'opaque-secret')).toMatch(/^http:\/\/a sha256:[0-9a-f]{16}$/);
    expect(targetOf('http://a', 'opaque-secret')).not.toContain('opaque');
  });
});
