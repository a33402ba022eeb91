import { Writable } from 'node:stream';
import { createLogger, logContext, withLogContext } from './logger';

describe('log context (D-4)', () => {
  it('writes the context’s set ids on every line inside it, and a line’s fields never change the context', () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger('test', 'info', 'i1', sink);
    withLogContext({ requestId: 'r1', messageId: undefined }, () => {
      logger.info({ requestId: 'r2', extra: 1 }, 'own fields');
      logger.info('plain');
      expect(logContext.getStore()).toEqual({ requestId: 'r1', messageId: undefined });
    });
    logger.info('outside');
    expect(lines.map(({ msg, requestId, extra }) => ({ msg, requestId, extra }))).toEqual([
      { msg: 'own fields', requestId: 'r2', extra: 1 },
      { msg: 'plain', requestId: 'r1', extra: undefined },
      { msg: 'outside', requestId: undefined, extra: undefined },
    ]);
    expect(lines.every((line) => !('messageId' in line))).toBe(true);
  });
});
