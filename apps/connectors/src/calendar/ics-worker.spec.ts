import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IcsWorker } from './ics-worker';
import { runExpandJob } from './ics-job';

/** The worker thread gives what the in-process reader gives, and leaves the event loop free meanwhile. */
describe('IcsWorker', () => {
  const worker = new IcsWorker();
  afterAll(() => worker.onModuleDestroy());
  const text = readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'calendar', 'real-world', 'google-team.ics'), 'utf8');
  const job = { text, memberZone: 'Europe/Berlin', fromMs: Date.parse('2026-11-09T00:00:00Z'), toMs: Date.parse('2026-12-07T00:00:00Z') };

  it('returns what runExpandJob returns in-process', async () => {
    const result = await worker.expand(job);
    expect(result).toEqual(runExpandJob(job));
    expect(result.ok && result.instances.length).toBeGreaterThan(5);
  }, 30_000);

  it('returns a feed-level error as a result, not a crash', async () => {
    await expect(worker.expand({ ...job, text: '<html>' })).resolves.toEqual({
      ok: false,
      line: 1,
      message: 'line 1: not an iCalendar feed: it does not start with BEGIN:VCALENDAR',
    });
  });

  it('keeps the event loop answering while a large feed is expanded', async () => {
    // Hourly series (walked step by step from DTSTART): some 50,000 recurrence steps in all.
    const series = Array.from({ length: 40 }, (_, i) =>
      ['BEGIN:VEVENT', `UID:s${i}`, `DTSTART:2026100${(i % 9) + 1}T0${i % 10}0000Z`, 'RRULE:FREQ=HOURLY', 'END:VEVENT'].join('\r\n'),
    );
    const big = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//big//EN', ...series, 'END:VCALENDAR'].join('\r\n');
    let ticks = 0;
    let worstGapMs = 0;
    let last = Date.now();
    const timer = setInterval(() => {
      ticks++;
      worstGapMs = Math.max(worstGapMs, Date.now() - last);
      last = Date.now();
    }, 10);
    const started = Date.now();
    const result = await worker.expand({
      ...job,
      text: big,
      fromMs: Date.parse('2026-11-01T00:00:00Z'),
      toMs: Date.parse('2026-12-01T00:00:00Z'),
    });
    clearInterval(timer);
    const tookMs = Date.now() - started;

    expect(result.ok).toBe(true);
    // The expansion takes a while; the loop ticked all along (a blocked loop would show one gap as long as the job).
    expect(ticks).toBeGreaterThan(tookMs / 100);
    expect(worstGapMs).toBeLessThan(Math.max(1_000, tookMs / 2));
  }, 120_000);
});
