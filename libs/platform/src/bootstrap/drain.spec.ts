import type { INestApplicationContext } from '@nestjs/common';
import { Writable } from 'node:stream';
import { KafkaClient } from '../kafka/kafka.client';
import { createLogger } from '../logging/logger';
import { ReadinessService } from '../health/readiness.service';
import type { AppConfig } from '../config/base.config';
import { drainOnSignals } from './bootstrap';

/** A hosted app whose close resolves when `closes` says so; `crash` reports a fatal error as its Kafka client would. */
function fakeApp(closes: Promise<void>): { app: INestApplicationContext; crash: (reason: string) => void } {
  let fatal: (reason: string) => void = () => undefined;
  const readiness = { setAccepting: jest.fn() };
  const kafka = { onFatal: (listener: (reason: string) => void) => (fatal = listener) };
  const app = {
    get: (token: unknown) => (token === ReadinessService ? readiness : token === KafkaClient ? kafka : undefined),
    close: () => closes,
  } as unknown as INestApplicationContext;
  return { app, crash: (reason) => fatal(reason) };
}

/** A logger of `app` whose lines land in `lines`. */
function collectingLogger(app: string, lines: Array<Record<string, unknown>>) {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return createLogger(app, 'info', 'test', sink);
}

describe('drainOnSignals (several hosted apps)', () => {
  let exit: jest.SpyInstance;
  beforeEach(() => {
    jest.useFakeTimers();
    exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  });
  afterEach(() => {
    jest.useRealTimers();
    exit.mockRestore();
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
  });

  it('names, through its own logger, each app whose close outlasts SHUTDOWN_TIMEOUT_MS, then exits 1', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const plate = fakeApp(new Promise<void>(() => undefined));
    const sessions = fakeApp(Promise.resolve());
    drainOnSignals([plate.app, sessions.app], { SHUTDOWN_TIMEOUT_MS: 10_000 } as AppConfig, collectingLogger('plate', lines), [
      collectingLogger('plate', lines),
      collectingLogger('sessions', lines),
    ]);
    sessions.crash('consumer x crashed');
    await Promise.resolve();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(exit).toHaveBeenCalledWith(1);
    const stuck = lines.filter((l) => l.msg === 'app did not close in time').map((l) => l.app);
    expect(stuck).toEqual(['plate']);
    expect(lines.some((l) => l.msg === 'drain timed out; exiting')).toBe(true);
    expect(lines.some((l) => l.msg === 'stopped')).toBe(false);
  });

  it('exits with the reason code once every app closed, naming none', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const a = fakeApp(Promise.resolve());
    const b = fakeApp(Promise.resolve());
    drainOnSignals([a.app, b.app], { SHUTDOWN_TIMEOUT_MS: 10_000 } as AppConfig, collectingLogger('a', lines), [
      collectingLogger('a', lines),
      collectingLogger('b', lines),
    ]);
    a.crash('consumer y crashed');
    await jest.advanceTimersByTimeAsync(10);
    expect(exit).toHaveBeenCalledWith(1);
    expect(lines.filter((l) => l.msg === 'app did not close in time')).toEqual([]);
    expect(lines.some((l) => l.msg === 'stopped' && l.exitCode === 1)).toBe(true);
  });
});
