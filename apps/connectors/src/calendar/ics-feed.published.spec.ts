import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandFeed, parseIcsFeed } from './ics-feed';
import { runExpandJob } from './ics-job';

/**
 * Published .ics exports (test/fixtures/calendar/published: the test files
 * the `ical@0.8.0` npm package ships, unmodified, provenance in
 * PROVENANCE.md there) read by our reader and by an independent one,
 * node-ical, file by file, event by event. Nothing here is
 * written per file: every .ics in the folder is read in six member zones
 * and two windows, and every occurrence's uid, start, end and all-day flag
 * must agree; every occurrence node-ical's EXDATEs remove must be absent
 * from ours; every event node-ical cannot date must be skipped by ours, the
 * rest of its feed kept. Where the two readers differ on purpose the
 * difference is listed in PROVENANCE.md and at `Difference` below, and each is
 * asserted as itself, so a new difference fails.
 *
 * node-ical reads floating and all-day values in the process's zone and
 * knows nothing of X-WR-TIMEZONE, so it runs in child processes with TZ set:
 * its all-day occurrences are taken from the run in the member's zone, its
 * timed ones from the run in the zone our reader reads floating times in
 * (the feed's X-WR-TIMEZONE, else the member's).
 */
const DIR = join(__dirname, '..', '..', 'test', 'fixtures', 'calendar', 'published');
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.ics'))
  .sort();
/** Three ordinary zones, and the extremes: UTC+14, UTC−11, a half-hour offset with a half-hour DST shift. */
const MEMBER_ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Asia/Tokyo',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
  'Australia/Lord_Howe',
] as const;
/** Where the exports' own dates lie (2002–2019), and a year of today for their open-ended series. */
const WINDOWS = [
  { name: '2000–2020', from: new Date('2000-01-01T00:00:00.000Z'), to: new Date('2021-01-01T00:00:00.000Z') },
  { name: '2026', from: new Date('2026-01-01T00:00:00.000Z'), to: new Date('2027-01-01T00:00:00.000Z') },
] as const;

interface Occurrence {
  uid: string;
  start: number;
  end: number;
  allDay: boolean;
}

interface OracleFile {
  /** Occurrences per window, EXDATEs applied. */
  windows: Occurrence[][];
  /** Per window, the occurrences node-ical's EXDATEs removed. */
  excluded: Occurrence[][];
  /** Per window, series whose DTSTART their RRULE does not produce: node-ical leaves that start out. */
  startOutsideRule: Occurrence[][];
  /** UIDs of VEVENTs node-ical reads without a valid start. */
  undated: string[];
  /** Set when node-ical could not read the file at all. */
  error?: string;
}

const NO_UID = '(no uid)';

/** node-ical over every file, in one child process with TZ = zone. */
function nodeIcal(zone: string): Record<string, OracleFile> {
  const script = `
    const ical = require('node-ical');
    console.warn = () => {};
    console.error = () => {};
    const { files, windows } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    const valid = (d) => d instanceof Date && !Number.isNaN(d.getTime());
    const out = {};
    for (const { name, text } of files) {
      const result = { windows: windows.map(() => []), excluded: windows.map(() => []), startOutsideRule: windows.map(() => []), undated: [] };
      out[name] = result;
      let parsed;
      try { parsed = ical.sync.parseICS(text); } catch (e) { result.error = String(e && e.message || e); continue; }
      for (const event of Object.values(parsed)) {
        if (!event || event.type !== 'VEVENT') continue;
        const uid = typeof event.uid === 'string' && event.uid.trim() !== '' ? event.uid.trim() : ${JSON.stringify(NO_UID)};
        if (!valid(event.start)) { result.undated.push(uid); continue; }
        const allDay = event.datetype === 'date';
        const occurrence = (i) => ({ uid, start: i.start.getTime(), end: (valid(i.end) ? i.end : i.start).getTime(), allDay });
        windows.forEach(([fromMs, toMs], w) => {
          const [from, to] = [new Date(fromMs), new Date(toMs - 1)];
          const inRange = (i) => i.start.getTime() >= fromMs && i.start.getTime() < toMs;
          if (!event.rrule) {
            if (inRange(event)) result.windows[w].push(occurrence(event));
            for (const o of Object.values(event.recurrences || {})) if (valid(o.start) && inRange(o)) result.windows[w].push(occurrence(o));
            return;
          }
          const kept = ical.expandRecurringEvent(event, { from, to }).filter(inRange).map(occurrence);
          const all = ical.expandRecurringEvent(event, { from, to, excludeExdates: false, includeOverrides: false }).filter(inRange).map(occurrence);
          result.windows[w].push(...kept);
          const keptStarts = new Set(ical.expandRecurringEvent(event, { from, to, includeOverrides: false }).map((i) => i.start.getTime()));
          result.excluded[w].push(...all.filter((o) => !keptStarts.has(o.start)));
          if (inRange(event) && !all.some((o) => o.start === event.start.getTime())) result.startOutsideRule[w].push(occurrence(event));
        });
      }
    }
    process.stdout.write(JSON.stringify(out));
  `;
  const input = JSON.stringify({
    files: FILES.map((name) => ({ name, text: readFileSync(join(DIR, name), 'utf8') })),
    windows: WINDOWS.map((w) => [w.from.getTime(), w.to.getTime()]),
  });
  const stdout = execFileSync(process.execPath, ['-e', script], {
    input,
    env: { ...process.env, TZ: zone },
    cwd: process.cwd(),
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout.toString('utf8')) as Record<string, OracleFile>;
}

const byInstant = (a: Occurrence, b: Occurrence): number =>
  a.start - b.start || a.end - b.end || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
const show = (o: Occurrence): string =>
  `${o.uid} ${new Date(o.start).toISOString()} → ${new Date(o.end).toISOString()}${o.allDay ? ' (all-day)' : ''}`;

function ours(file: string, memberZone: string) {
  const feed = parseIcsFeed(readFileSync(join(DIR, file), 'utf8'), { memberZone });
  const windows = WINDOWS.map((w) => {
    const { instances, skipped } = expandFeed(feed, w);
    expect(skipped).toEqual([]); // the expansion bounds never trip on these
    return instances
      .map((i) => ({
        uid: i.uid.startsWith('derived:') ? NO_UID : i.uid,
        start: Date.parse(i.start),
        end: Date.parse(i.end),
        allDay: i.allDay,
      }))
      .sort(byInstant);
  });
  return { feed, windows };
}

const oracles = new Map<string, Record<string, OracleFile>>();
function oracle(zone: string): Record<string, OracleFile> {
  let result = oracles.get(zone);
  if (!result) {
    result = nodeIcal(zone);
    oracles.set(zone, result);
  }
  return result;
}

/**
 * Where our reading differs from node-ical's on purpose (PROVENANCE.md,
 * "Differences from node-ical"). node-ical's occurrences are turned into
 * ours at exactly those points, and every point is recorded: the test
 * asserts the list, so a difference that spreads or disappears fails.
 *
 * - `startOutsideRule`: a series whose DTSTART its RRULE does not produce
 *   (test6.ics: a Thursday DTSTART, `BYDAY=MO,FR`). RFC 5545 leaves that
 *   recurrence set undefined; node-ical (rrule) yields only the rule's
 *   dates, ours, like ical.js and RFC 5545's "DTSTART … is always the first
 *   instance", keeps DTSTART as the first occurrence. It is added.
 * - `negativeDuration`: an event whose DTEND lies before its DTSTART
 *   (test12.ics's override moves DTSTART to the 9th and keeps DTEND on the
 *   7th): node-ical keeps the negative span, ours ends the occurrence at its
 *   start (a timeline entry cannot end before it begins). It is clipped.
 */
type Difference = 'startOutsideRule' | 'negativeDuration';

/** node-ical's occurrences of a file, for a member zone and window, with the documented differences applied. */
function theirs(file: string, memberZone: string, floatingZone: string, window: number, applied: Map<Difference, string[]>): Occurrence[] {
  const record = (difference: Difference, o: Occurrence): void => {
    applied.set(difference, [...(applied.get(difference) ?? []), `${file} ${o.uid} ${new Date(o.start).toISOString()}`]);
  };
  const pick = (from: (f: OracleFile) => Occurrence[][]): Occurrence[] => [
    ...from(oracle(memberZone)[file])[window].filter((o) => o.allDay),
    ...from(oracle(floatingZone)[file])[window].filter((o) => !o.allDay),
  ];
  const starts = pick((f) => f.startOutsideRule);
  starts.forEach((o) => record('startOutsideRule', o));
  return [...pick((f) => f.windows), ...starts]
    .map((o) => {
      if (o.end >= o.start) return o;
      record('negativeDuration', o);
      return { ...o, end: o.start };
    })
    .sort(byInstant);
}

const veventCount = (file: string): number => readFileSync(join(DIR, file), 'utf8').match(/^BEGIN:VEVENT\r?$/gm)?.length ?? 0;

describe('published exports agree with node-ical', () => {
  const applied = new Map<Difference, string[]>();
  const totals = { files: 0, vevents: 0, skipped: 0, occurrences: 0, allDayOccurrences: 0, excludedByExdate: 0 };

  describe.each(MEMBER_ZONES)('for a member in %s', (zone) => {
    it.each(FILES)('%s: every occurrence in every window has node-ical’s uid, start, end and all-day flag', (file) => {
      const { feed, windows } = ours(file, zone);
      WINDOWS.forEach((_w, i) => {
        expect(windows[i].map(show)).toEqual(theirs(file, zone, feed.floatingZone, i, applied).map(show));
        if (zone === MEMBER_ZONES[0]) {
          totals.occurrences += windows[i].length;
          totals.allDayOccurrences += windows[i].filter((o) => o.allDay).length;
        }
      });
    });

    it.each(FILES)('%s: no occurrence node-ical’s EXDATEs remove is in ours', (file) => {
      const { feed, windows } = ours(file, zone);
      WINDOWS.forEach((_w, i) => {
        const excluded = [
          ...oracle(zone)[file].excluded[i].filter((o) => o.allDay),
          ...oracle(feed.floatingZone)[file].excluded[i].filter((o) => !o.allDay),
        ];
        const starts = new Set(windows[i].map((o) => `${o.uid} ${o.start}`));
        expect(excluded.filter((o) => starts.has(`${o.uid} ${o.start}`)).map(show)).toEqual([]);
        if (zone === MEMBER_ZONES[0]) totals.excludedByExdate += excluded.length;
      });
    });

    it.each(FILES)('%s: skips exactly the events node-ical cannot date, and keeps the rest of the feed', (file) => {
      const { feed } = ours(file, zone);
      const theirsFile = oracle(zone)[file];
      expect(theirsFile.error).toBeUndefined();
      expect(feed.skipped.map((s) => s.uid ?? NO_UID).sort()).toEqual([...theirsFile.undated].sort());
      expect(feed.events).toHaveLength(veventCount(file) - feed.skipped.length);
      if (zone === MEMBER_ZONES[0]) {
        totals.files += 1;
        totals.vevents += veventCount(file);
        totals.skipped += feed.skipped.length;
      }
    });
  });

  it('differs from node-ical only where PROVENANCE.md says, and there exactly', () => {
    // Each difference is met once per member zone (its occurrence lies in one window).
    expect(Object.fromEntries(applied)).toEqual({
      negativeDuration: MEMBER_ZONES.map(() => 'test12.ics 0000001 2015-07-09T22:00:00.000Z'),
      startOutsideRule: [
        'test6.ics (no uid) 2011-08-03T22:00:00.000Z', // 4 August 2011, midnight in Berlin
        'test6.ics (no uid) 2011-08-04T04:00:00.000Z', // … in New York
        'test6.ics (no uid) 2011-08-03T15:00:00.000Z', // … in Tokyo
        'test6.ics (no uid) 2011-08-03T10:00:00.000Z', // … in Kiritimati
        'test6.ics (no uid) 2011-08-04T11:00:00.000Z', // … in Pago Pago
        'test6.ics (no uid) 2011-08-03T13:30:00.000Z', // … on Lord Howe Island
      ],
    });

    // test12.ics: the override moved to the 9th with its DTEND left on the 7th ends at its start.
    const moved = ours('test12.ics', 'Europe/Berlin').windows[0].find((o) => o.start === Date.parse('2015-07-09T22:00:00.000Z'));
    expect(moved).toEqual({
      uid: '0000001',
      start: Date.parse('2015-07-09T22:00:00.000Z'),
      end: Date.parse('2015-07-09T22:00:00.000Z'),
      allDay: false,
    });

    // test6.ics: the Thursday DTSTART of the `BYDAY=MO,FR` series is its first occurrence, then the rule's Mondays and Fridays.
    const feed = parseIcsFeed(readFileSync(join(DIR, 'test6.ics'), 'utf8'), { memberZone: 'Europe/Berlin' });
    const [series] = feed.events.filter((e) => e.recurring);
    expect(series?.title).toBe('foobarTV broadcast starts');
    const [first, second] = expandFeed(feed, WINDOWS[0]).instances.filter((i) => i.uid === series?.uid);
    expect([first?.start, second?.start]).toEqual(['2011-08-03T22:00:00.000Z', '2011-08-04T22:00:00.000Z']); // Thursday 4, Friday 5 August
  });

  it('keeps the rest of a published feed when one event cannot be dated, as the worker runs it', () => {
    // test1.ics (Lanyrd, as the package ships it) ends with `DTSTART;VALUE=DATE:Next Year`.
    const result = runExpandJob({
      text: readFileSync(join(DIR, 'test1.ics'), 'utf8'),
      memberZone: 'Europe/Berlin',
      fromMs: WINDOWS[0].from.getTime(),
      toMs: WINDOWS[0].to.getTime(),
    });
    expect(result.ok && result.instances).toHaveLength(8);
    expect(result.ok && result.skipped).toEqual([
      { uid: 'sdfkf09fsd0', position: 9, line: 74, reason: expect.stringContaining('invalid DTSTART') as unknown },
    ]);
  });

  it('compared every file, event and occurrence PROVENANCE.md counts', () => {
    // Counted for the first member zone (the others compare the same occurrences in their zones).
    expect(totals).toEqual({ files: 16, vevents: 232, skipped: 6, occurrences: 527, allDayOccurrences: 182, excludedByExdate: 10 });
  });
});
