import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandFeed, parseIcsFeed } from './ics-feed';

/**
 * Real-world-shaped exports (test/fixtures/calendar/real-world, provenance in
 * PROVENANCE.md there) read by our reader and by an independent one,
 * node-ical: the instants of every occurrence in the window must agree
 *. Expectations are not written by hand; node-ical is the oracle.
 * node-ical reads floating and all-day values in the process's zone, so each
 * case sets TZ to the zone our reader is told is the member's (or the
 * feed's X-WR-TIMEZONE, for floating times, which is what node-ical cannot
 * know) for the duration of the comparison.
 */
const DIR = join(__dirname, '..', '..', 'test', 'fixtures', 'calendar', 'real-world');
const read = (name: string): string => readFileSync(join(DIR, name), 'utf8');
const WINDOW = { from: new Date('2026-11-09T00:00:00.000Z'), to: new Date('2026-12-07T00:00:00.000Z') };

interface Occurrence {
  start: number;
  end: number;
}

/**
 * node-ical's occurrences in the window: starts and ends, sorted. It runs in
 * a child process with TZ set (jest's sandboxed process.env cannot move the
 * zone of the process it runs in).
 */
function nodeIcalOccurrences(text: string, zone: string): Occurrence[] {
  const script = `
    const ical = require('node-ical');
    console.warn = () => {};
    const text = require('node:fs').readFileSync(0, 'utf8');
    const [from, to] = [new Date(${WINDOW.from.getTime()}), new Date(${WINDOW.to.getTime() - 1})];
    const out = [];
    for (const event of Object.values(ical.sync.parseICS(text))) {
      if (!event || event.type !== 'VEVENT') continue;
      const instances = event.rrule ? ical.expandRecurringEvent(event, { from, to }) : [{ start: event.start, end: event.end || event.start }];
      // node-ical keeps RDATE raw; its DATE values are added here as local days (the only reading of ours in the oracle).
      const rdate = event.rdate && event.rdate.params && event.rdate.params.VALUE === 'DATE' ? String(event.rdate.val).split(',') : [];
      for (const d of rdate) {
        const start = new Date(Number(d.slice(0, 4)), Number(d.slice(4, 6)) - 1, Number(d.slice(6, 8)));
        instances.push({ start, end: new Date(start.getTime() + (event.end.getTime() - event.start.getTime())) });
      }
      for (const i of instances) {
        const start = i.start.getTime();
        if (start >= from.getTime() && start <= to.getTime()) out.push({ start, end: i.end.getTime() });
      }
    }
    process.stdout.write(JSON.stringify(out));
  `;
  const stdout = execFileSync(process.execPath, ['-e', script], { input: text, env: { ...process.env, TZ: zone }, cwd: process.cwd() });
  return (JSON.parse(stdout.toString('utf8')) as Occurrence[]).sort((a, b) => a.start - b.start || a.end - b.end);
}

function ourOccurrences(text: string, memberZone: string): Occurrence[] {
  const feed = parseIcsFeed(text, { memberZone });
  const { instances } = expandFeed(feed, WINDOW);
  return instances.map((i) => ({ start: Date.parse(i.start), end: Date.parse(i.end) })).sort((a, b) => a.start - b.start || a.end - b.end);
}

describe('real-world exports agree with node-ical', () => {
  it.each<[string, string, string]>([
    ['google-team.ics', 'Europe/Berlin', 'Google: VTIMEZONE, weekly series since 2025, EXDATE list, moved override, all-day span'],
    ['outlook-windows-vtimezone.ics', 'Europe/Berlin', 'Exchange: Windows zone names with VTIMEZONEs, folded UIDs'],
    ['outlook-windows-no-vtimezone.ics', 'Europe/Berlin', 'Outlook: Windows zone names without VTIMEZONE'],
    ['owa-display-name-tzid.ics', 'Europe/Berlin', 'OWA: display-name TZIDs, one unquoted (mis-quoted)'],
    ['apple-allday.ics', 'America/Los_Angeles', 'Apple: all-day series with DATE EXDATE/RDATE lists and a moved all-day override'],
    ['synology-date-without-value.ics', 'Asia/Tokyo', 'Synology: DATE values without VALUE=DATE'],
    ['wordpress-no-uid-floating.ics', 'America/Chicago', 'WordPress plugin: floating times, no UID, no X-WR-TIMEZONE'],
    ['fastmail-floating-wr-timezone.ics', 'America/New_York', 'Fastmail: floating series read in X-WR-TIMEZONE'],
    [
      'exchange-allday-override-datetime-recurrence-id.ics',
      'Europe/Berlin',
      'Exchange: all-day series whose overrides name their day by a zoned DATE-TIME RECURRENCE-ID',
    ],
    [
      'exchange-allday-override-datetime-recurrence-id.ics',
      'America/New_York',
      'Exchange: the same, for a member in another zone than the RECURRENCE-ID (midnight there is another instant)',
    ],
    ['exchange-allday-override-datetime-recurrence-id.ics', 'Asia/Tokyo', 'Exchange: the same, for a member east of the zone'],
    ['exchange-tzid-quote-around-value.ics', 'Europe/Berlin', 'Exchange: a TZID quote closed after the value (mis-quoted TZID)'],
  ])('%s (%s): %s', (file, zone) => {
    const text = read(file);
    const ours = ourOccurrences(text, zone);
    expect(ours.length).toBeGreaterThan(0);
    // node-ical cannot read an unquoted TZID holding a colon: it is the oracle for the correctly quoted export.
    const quoted = text.replace(/;TZID=(\(UTC[^:]*:00\)[^:;]*):/g, ';TZID="$1":');
    expect(ours).toEqual(nodeIcalOccurrences(quoted, zone));
  });

  it('reads floating times in X-WR-TIMEZONE rather than the member zone', () => {
    const text = read('fastmail-floating-wr-timezone.ics');
    const inTokyo = parseIcsFeed(text, { memberZone: 'Asia/Tokyo' });
    expect(inTokyo.floatingZone).toBe('America/New_York');
    expect(ourOccurrences(text, 'Asia/Tokyo')).toEqual(nodeIcalOccurrences(text, 'America/New_York'));
  });

  it('reads all-day events as the member’s local day, midnight to midnight in their zone', () => {
    const feed = parseIcsFeed(read('synology-date-without-value.ics'), { memberZone: 'Asia/Tokyo' });
    const [backup] = expandFeed(feed, WINDOW).instances.filter((i) => i.uid.startsWith('syno-20261117'));
    expect(backup).toMatchObject({ allDay: true, start: '2026-11-16T15:00:00.000Z', end: '2026-11-17T15:00:00.000Z' });
  });

  it('keeps the feed when one event is unreadable, reporting that one', () => {
    const feed = parseIcsFeed(read('one-bad-event.ics'));
    expect(feed.events.map((e) => e.uid)).toEqual(['good-1@groupware.example', 'good-2@groupware.example']);
    expect(feed.skipped).toEqual([expect.objectContaining({ uid: 'bad-1@groupware.example', position: 2, line: 14 })]);
  });

  it('gives UID-less events the same ids on every poll', () => {
    const text = read('wordpress-no-uid-floating.ics');
    const ids = parseIcsFeed(text).events.map((e) => e.uid);
    expect(ids.every((id) => id.startsWith('derived:'))).toBe(true);
    expect(parseIcsFeed(text.replace(/DTSTAMP:20261115T000000Z/g, 'DTSTAMP:20261120T000000Z')).events.map((e) => e.uid)).toEqual(ids);
  });

  it('yields this week of dozens of daily series begun a decade ago, within the default bounds and quickly', () => {
    const series = Array.from({ length: 60 }, (_, i) =>
      [
        'BEGIN:VEVENT',
        `UID:daily-${i}@decade.example`,
        'DTSTAMP:20261101T000000Z',
        `DTSTART;TZID=Europe/Berlin:2016${String((i % 12) + 1).padStart(2, '0')}04T${String(8 + (i % 9)).padStart(2, '0')}0000`,
        'DURATION:PT15M',
        i % 2 === 0 ? 'RRULE:FREQ=DAILY' : 'RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR',
        `SUMMARY:Series ${i}`,
        'END:VEVENT',
      ].join('\r\n'),
    );
    const text = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//decade//EN', ...series, 'END:VCALENDAR'].join('\r\n');
    const week = { from: new Date('2026-11-16T00:00:00Z'), to: new Date('2026-11-23T00:00:00Z') };
    const started = process.hrtime.bigint();
    const result = expandFeed(parseIcsFeed(text, { memberZone: 'Europe/Berlin' }), week);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;

    expect(result.skipped).toEqual([]);
    expect(result.instances).toHaveLength(30 * 7 + 30 * 5);
    expect(ms).toBeLessThan(5_000); // walking every day since 2016 would cost 60 × 3,800 steps; generous for a noisy machine
  });
});
