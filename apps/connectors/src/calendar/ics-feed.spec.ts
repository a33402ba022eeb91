import ICAL from 'ical.js';
import { readCalendarFixture } from '../../test/fixtures/calendar/calendar-fixtures';
import { CalendarInstance, DEFAULT_EXPANSION_LIMITS, IcsParseError, expandFeed, expandInstances, parseIcsFeed } from './ics-feed';

const STANDUP = '0f4c2b1e9d7a4c33a1b2c3d4e5f60718@google.com';
const REVIEW = '7c1d5e0a3b9f4d2e8f6a5b4c3d2e1f00@google.com';
const OFFSITE = '2b8e4f6a1c3d5e7f9a0b1c2d3e4f5a6b@google.com';
const ONE_ON_ONE = '5d6e7f8091a2b3c4d5e6f708192a3b4c@google.com';

const window = (from: string, to: string) => ({ from: new Date(from), to: new Date(to) });
/** The whole fixture series: from its first standup (before the end of summer time) to its UNTIL. */
const WHOLE_SERIES = window('2026-10-19T00:00:00Z', '2026-11-28T00:00:00Z');

/** A VCALENDAR around the given VEVENT bodies (CRLF, as served). */
const calendar = (...events: string[]): string =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    ...events.flatMap((e) => ['BEGIN:VEVENT', e.trim(), 'END:VEVENT']),
    'END:VCALENDAR',
  ]
    .join('\n')
    .replace(/\n/g, '\r\n');

const expand = (text: string, w = WHOLE_SERIES): CalendarInstance[] => expandInstances(parseIcsFeed(text), w);
const starts = (instances: CalendarInstance[]): string[] => instances.map((i) => i.start);

function parseError(text: string): IcsParseError {
  try {
    parseIcsFeed(text);
  } catch (error) {
    if (error instanceof IcsParseError) return error;
    throw error;
  }
  throw new Error('expected an IcsParseError');
}

describe('parseIcsFeed', () => {
  it('reads the VEVENTs and the PRODID of a Google feed', () => {
    const feed = parseIcsFeed(readCalendarFixture('team.ics'));

    expect(feed.prodId).toBe('-//Google Inc//Google Calendar 70.9054//EN');
    expect(feed.events.map((e) => [e.uid, e.line])).toEqual([
      [STANDUP, 27],
      [STANDUP, 54],
      [STANDUP, 79],
      [REVIEW, 95],
      [OFFSITE, 118],
      [ONE_ON_ONE, 132],
    ]);
  });

  it('accepts a byte order mark and LF line endings', () => {
    const text = `\uFEFF${calendar('UID:a\nDTSTART:20261116T090000Z')}`.replace(/\r\n/g, '\n');

    expect(expand(text).map((i) => [i.uid, i.start])).toEqual([['a', '2026-11-16T09:00:00.000Z']]);
  });

  it('refuses a feed cut off mid-download, naming its last line', () => {
    const error = parseError(readCalendarFixture('malformed.ics'));

    expect(error.line).toBe(97);
    expect(error.message).toBe('line 97: truncated feed: it ends inside BEGIN:VEVENT of line 95');
  });

  it.each([
    ['an empty body', '', null, 'not an iCalendar feed: the feed is empty'],
    ['blank lines', '\r\n\r\n', null, 'not an iCalendar feed: the feed is empty'],
    [
      'an HTML login page',
      '<!DOCTYPE html>\n<html><body>Sign in</body></html>\n',
      1,
      'line 1: not an iCalendar feed: it does not start with BEGIN:VCALENDAR',
    ],
    [
      'a vCard',
      'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ana\r\nEND:VCARD\r\n',
      1,
      'line 1: not an iCalendar feed: it does not start with BEGIN:VCALENDAR',
    ],
    [
      'a component closed by the wrong END',
      'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nEND:VCALENDAR\r\n',
      4,
      'line 4: END:VCALENDAR does not close BEGIN:VEVENT of line 2',
    ],
    ['a stray END', 'BEGIN:VCALENDAR\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n', 2, 'line 2: END:VEVENT does not close BEGIN:VCALENDAR of line 1'],
    [
      'a second calendar',
      'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n',
      3,
      'line 3: unexpected content after END:VCALENDAR',
    ],
  ])('refuses %s', (_name, text, line, message) => {
    const error = parseError(text);

    expect(error).toBeInstanceOf(IcsParseError);
    expect(error.name).toBe('IcsParseError');
    expect(error.line).toBe(line);
    expect(error.message).toBe(message);
  });

  it('never quotes what the URL answered in a feed-level error (no SSRF oracle)', () => {
    const secret = 'root:x:0:0:internal-service-answer';
    expect(parseError(`${secret}\n`).message).not.toContain('root');
    expect(parseError(`BEGIN:VCALENDAR\nEND:VCALENDAR\n${secret}\n`).message).not.toContain('root');
    expect(parseError(`BEGIN:VCALENDAR\nEND:${secret}\n`).message).not.toContain('root');
  });

  // One odd event never costs the feed; it is skipped and reported with its UID or position, line and reason.
  it('skips a VEVENT holding a line that is not a content line, keeping the others', () => {
    const feed = parseIcsFeed(calendar('UID:a\nDTSTART:20261116T090000Z\nthis is not a property', 'UID:b\nDTSTART:20261116T100000Z'));

    expect(feed.events.map((e) => e.uid)).toEqual(['b']);
    expect(feed.skipped).toEqual([
      { uid: 'a', position: 1, line: 7, reason: 'invalid line (no token ";" or ":") "this is not a property"' },
    ]);
  });

  it('skips a VEVENT with an impossible RRULE, on the RRULE line', () => {
    const feed = parseIcsFeed(calendar('UID:a\nDTSTART:20261116T090000Z\nRRULE:FREQ=FORTNIGHTLY', 'UID:b\nDTSTART:20261116T100000Z'));

    expect(feed.events.map((e) => e.uid)).toEqual(['b']);
    expect(feed.skipped).toHaveLength(1);
    expect(feed.skipped[0]).toMatchObject({ uid: 'a', position: 1, line: 7 });
    expect(feed.skipped[0].reason).toMatch(/invalid frequency "FORTNIGHTLY"/);
  });

  it('skips a VEVENT with a garbled DTSTART, naming the UID and the DTSTART line', () => {
    const feed = parseIcsFeed(calendar('UID:standup-1\nSUMMARY:Standup\nDTSTART:2026AB16T090000Z', 'UID:b\nDTSTART:20261116T100000Z'));

    expect(feed.events.map((e) => e.uid)).toEqual(['b']);
    expect(feed.skipped).toEqual([
      { uid: 'standup-1', position: 1, line: 7, reason: 'invalid DTSTART: Could not extract integer from "AB"' },
    ]);
  });

  it('skips a VEVENT without DTSTART at its BEGIN:VEVENT', () => {
    const feed = parseIcsFeed(calendar('UID:a\nSUMMARY:x', 'UID:b\nDTSTART:20261116T100000Z'));
    expect(feed.skipped).toEqual([{ uid: 'a', position: 1, line: 4, reason: 'no DTSTART' }]);
    expect(feed.events.map((e) => e.uid)).toEqual(['b']);
  });

  it('gives a VEVENT without UID a stable id derived from its content and position', () => {
    const text = calendar(
      'DTSTAMP:20261116T000000Z\nDTSTART:20261116T090000Z\nSUMMARY:Standup',
      'DTSTAMP:20261116T000000Z\nDTSTART:20261116T090000Z\nSUMMARY:Standup',
      'DTSTART:20261116T100000Z\nSUMMARY:Review',
    );
    const first = parseIcsFeed(text).events.map((e) => e.uid);
    const again = parseIcsFeed(text.replace(/DTSTAMP:20261116T000000Z/g, 'DTSTAMP:20261117T080000Z')).events.map((e) => e.uid);

    expect(first).toHaveLength(3);
    expect(new Set(first).size).toBe(3);
    expect(first.every((uid) => uid.startsWith('derived:'))).toBe(true);
    expect(again).toEqual(first); // a re-export (new DTSTAMP) keeps the ids: re-polls do not duplicate
  });
});

describe('expandInstances on the team feed', () => {
  const instances = expand(readCalendarFixture('team.ics'));
  const standups = instances.filter((i) => i.uid === STANDUP);

  it('expands Mon/Wed/Fri 09:30 Berlin to exact UTC instants across the end of summer time', () => {
    expect(standups.map((i) => [i.start, i.status])).toEqual([
      ['2026-10-19T07:30:00.000Z', 'confirmed'], // CEST, UTC+2
      ['2026-10-21T07:30:00.000Z', 'confirmed'],
      ['2026-10-23T07:30:00.000Z', 'confirmed'],
      ['2026-10-26T08:30:00.000Z', 'confirmed'], // CET from 2026-10-25, UTC+1
      ['2026-10-28T08:30:00.000Z', 'confirmed'],
      ['2026-10-30T08:30:00.000Z', 'confirmed'],
      ['2026-11-02T08:30:00.000Z', 'confirmed'],
      ['2026-11-04T08:30:00.000Z', 'confirmed'],
      ['2026-11-06T08:30:00.000Z', 'confirmed'],
      ['2026-11-09T08:30:00.000Z', 'confirmed'],
      ['2026-11-11T08:30:00.000Z', 'confirmed'],
      ['2026-11-13T08:30:00.000Z', 'confirmed'],
      ['2026-11-16T09:30:00.000Z', 'confirmed'], // the override, moved by an hour
      // 2026-11-18: EXDATE
      ['2026-11-20T08:30:00.000Z', 'confirmed'],
      ['2026-11-23T08:30:00.000Z', 'cancelled'],
      ['2026-11-25T08:30:00.000Z', 'confirmed'],
      ['2026-11-27T08:30:00.000Z', 'confirmed'], // the last before UNTIL
    ]);
    expect(standups[0]).toEqual({
      uid: STANDUP,
      recurrenceId: '2026-10-19T07:30:00.000Z',
      sequence: 0,
      status: 'confirmed',
      title: 'Team standup',
      start: '2026-10-19T07:30:00.000Z',
      end: '2026-10-19T07:45:00.000Z',
      allDay: false,
      hasOrganizer: true,
      attendeeCount: 4,
    });
    expect(standups[4]?.end).toBe('2026-10-28T08:45:00.000Z');
  });

  it('leaves the EXDATE out entirely', () => {
    expect(instances.filter((i) => i.start.startsWith('2026-11-18'))).toEqual([]);
    expect(standups.map((i) => i.recurrenceId)).not.toContain('2026-11-18T08:30:00.000Z');
  });

  it('replaces the overridden occurrence by the override: moved time, own title and SEQUENCE', () => {
    expect(standups.filter((i) => i.recurrenceId === '2026-11-16T08:30:00.000Z')).toEqual([
      {
        uid: STANDUP,
        recurrenceId: '2026-11-16T08:30:00.000Z',
        sequence: 1,
        status: 'confirmed',
        title: 'Team standup (after the all-hands)',
        start: '2026-11-16T09:30:00.000Z',
        end: '2026-11-16T09:45:00.000Z',
        allDay: false,
        hasOrganizer: true,
        attendeeCount: 4,
      },
    ]);
    expect(starts(instances)).not.toContain('2026-11-16T08:30:00.000Z');
  });

  it('returns a cancelled override as a cancelled instance', () => {
    expect(standups.find((i) => i.recurrenceId === '2026-11-23T08:30:00.000Z')).toMatchObject({
      status: 'cancelled',
      sequence: 1,
      start: '2026-11-23T08:30:00.000Z',
      hasOrganizer: true,
      attendeeCount: 0,
    });
  });

  it('reads the one-off meeting, counting its organizer and attendees', () => {
    expect(instances.filter((i) => i.uid === REVIEW)).toEqual([
      {
        uid: REVIEW,
        recurrenceId: null,
        sequence: 0,
        status: 'confirmed',
        title: 'Design review: connectors',
        start: '2026-11-19T13:00:00.000Z',
        end: '2026-11-19T14:00:00.000Z',
        allDay: false,
        hasOrganizer: true,
        attendeeCount: 3,
      },
    ]);
  });

  it('reads an all-day event as UTC midnight to UTC midnight', () => {
    expect(instances.filter((i) => i.uid === OFFSITE)).toEqual([
      {
        uid: OFFSITE,
        recurrenceId: null,
        sequence: 0,
        status: 'confirmed',
        title: 'Team offsite',
        start: '2026-11-17T00:00:00.000Z',
        end: '2026-11-18T00:00:00.000Z',
        allDay: true,
        hasOrganizer: false,
        attendeeCount: 0,
      },
    ]);
  });

  it('reads STATUS:TENTATIVE', () => {
    expect(instances.find((i) => i.uid === ONE_ON_ONE)).toMatchObject({ status: 'tentative', start: '2026-11-24T13:00:00.000Z' });
  });

  it('sorts by start and counts every instance', () => {
    expect(instances).toHaveLength(20);
    expect(starts(instances)).toEqual([...starts(instances)].sort());
  });

  it('never carries DESCRIPTION, LOCATION or attendee addresses', () => {
    const text = JSON.stringify(expand(readCalendarFixture('team.ics'))) + JSON.stringify(expand(readCalendarFixture('team-updated.ics')));

    for (const leak of [
      'zoom.us',
      'pwd=secret',
      'Passcode',
      '884211',
      'meet.google.com',
      '471108150',
      'Spree',
      'Potsdam',
      'Bus leaves',
      'mailto',
      '@example.',
    ]) {
      expect(text).not.toContain(leak);
    }
  });

  it('applies the updated feed: the review rescheduled, Friday cancelled', () => {
    const updated = expand(readCalendarFixture('team-updated.ics'));

    expect(updated.find((i) => i.uid === REVIEW)).toMatchObject({
      sequence: 1,
      title: 'Design review: connectors (rescheduled)',
      start: '2026-11-19T13:30:00.000Z',
      end: '2026-11-19T14:30:00.000Z',
    });
    expect(updated.find((i) => i.recurrenceId === '2026-11-20T08:30:00.000Z')).toMatchObject({ status: 'cancelled', sequence: 1 });
    expect(updated).toHaveLength(20);
  });
});

describe('expandInstances windows', () => {
  const text = readCalendarFixture('team.ics');

  it('includes an instance starting exactly at `from` and excludes one starting exactly at `to`', () => {
    expect(starts(expand(text, window('2026-11-20T08:30:00Z', '2026-11-20T08:30:01Z')))).toEqual(['2026-11-20T08:30:00.000Z']);
    expect(expand(text, window('2026-11-20T00:00:00Z', '2026-11-20T08:30:00Z'))).toEqual([]);
  });

  it('places an override by its moved start, not its RECURRENCE-ID', () => {
    expect(expand(text, window('2026-11-16T08:00:00Z', '2026-11-16T09:00:00Z'))).toEqual([]);
    expect(expand(text, window('2026-11-16T09:00:00Z', '2026-11-16T10:00:00Z')).map((i) => i.recurrenceId)).toEqual([
      '2026-11-16T08:30:00.000Z',
    ]);
  });

  it('returns the week of 2026-11-16 only', () => {
    expect(expand(text, window('2026-11-16T00:00:00Z', '2026-11-23T00:00:00Z')).map((i) => [i.uid, i.start])).toEqual([
      [STANDUP, '2026-11-16T09:30:00.000Z'],
      [OFFSITE, '2026-11-17T00:00:00.000Z'],
      [REVIEW, '2026-11-19T13:00:00.000Z'],
      [STANDUP, '2026-11-20T08:30:00.000Z'],
    ]);
  });
});

describe('expandInstances recurrence rules', () => {
  it('cancels every instance of a cancelled series, overrides included', () => {
    const text = calendar(
      'UID:s\nSTATUS:CANCELLED\nDTSTART:20261116T090000Z\nDURATION:PT30M\nRRULE:FREQ=DAILY;COUNT=3',
      'UID:s\nRECURRENCE-ID:20261117T090000Z\nSTATUS:CONFIRMED\nDTSTART:20261117T100000Z\nDURATION:PT30M',
    );

    expect(expand(text).map((i) => [i.start, i.end, i.status])).toEqual([
      ['2026-11-16T09:00:00.000Z', '2026-11-16T09:30:00.000Z', 'cancelled'],
      ['2026-11-17T10:00:00.000Z', '2026-11-17T10:30:00.000Z', 'cancelled'],
      ['2026-11-18T09:00:00.000Z', '2026-11-18T09:30:00.000Z', 'cancelled'],
    ]);
  });

  it('keeps an override whose master is not in the feed', () => {
    const text = calendar('UID:s\nRECURRENCE-ID:20261117T090000Z\nSUMMARY:Only this one\nDTSTART:20261117T090000Z');

    expect(expand(text).map((i) => [i.recurrenceId, i.title])).toEqual([['2026-11-17T09:00:00.000Z', 'Only this one']]);
  });

  it('lets an override without SUMMARY keep the series title, and drops an override of an EXDATE', () => {
    const text = calendar(
      'UID:s\nSUMMARY:Sync\nDTSTART:20261116T090000Z\nRRULE:FREQ=DAILY;COUNT=3\nEXDATE:20261118T090000Z',
      'UID:s\nRECURRENCE-ID:20261117T090000Z\nDTSTART:20261117T110000Z',
      'UID:s\nRECURRENCE-ID:20261118T090000Z\nSUMMARY:Ghost\nDTSTART:20261118T090000Z',
    );

    expect(expand(text).map((i) => [i.start, i.title])).toEqual([
      ['2026-11-16T09:00:00.000Z', 'Sync'],
      ['2026-11-17T11:00:00.000Z', 'Sync'],
    ]);
  });

  it('keeps the newest of duplicated masters and overrides (highest SEQUENCE)', () => {
    const text = calendar(
      'UID:s\nSEQUENCE:2\nSUMMARY:New\nDTSTART:20261116T090000Z\nRRULE:FREQ=DAILY;COUNT=2',
      'UID:s\nSEQUENCE:1\nSUMMARY:Old\nDTSTART:20261116T080000Z\nRRULE:FREQ=DAILY;COUNT=5',
      'UID:s\nRECURRENCE-ID:20261117T090000Z\nSEQUENCE:4\nSUMMARY:Moved again\nDTSTART:20261117T120000Z',
      'UID:s\nRECURRENCE-ID:20261117T090000Z\nSEQUENCE:3\nSUMMARY:Moved\nDTSTART:20261117T110000Z',
    );

    expect(expand(text).map((i) => [i.start, i.title, i.sequence])).toEqual([
      ['2026-11-16T09:00:00.000Z', 'New', 2],
      ['2026-11-17T12:00:00.000Z', 'Moved again', 4],
    ]);
  });

  it('includes DTSTART in an RDATE-only series (ical.js alone skips it)', () => {
    const text = calendar('UID:r\nDTSTART:20261116T090000Z\nRDATE:20261118T090000Z,20261117T090000Z');

    expect(starts(expand(text))).toEqual(['2026-11-16T09:00:00.000Z', '2026-11-17T09:00:00.000Z', '2026-11-18T09:00:00.000Z']);
  });

  it('removes every EXDATE, also one following an EXDATE that matches no occurrence (ical.js alone misses it)', () => {
    const text = calendar('UID:x\nDTSTART:20261116T090000Z\nRRULE:FREQ=DAILY;COUNT=4\nEXDATE:20261116T100000Z,20261117T090000Z');

    expect(starts(expand(text))).toEqual(['2026-11-16T09:00:00.000Z', '2026-11-18T09:00:00.000Z', '2026-11-19T09:00:00.000Z']);
  });

  it('removes a DATE EXDATE from a DATE-TIME series, and an EXDATE given in another zone', () => {
    const text = calendar(
      'UID:x\nDTSTART:20261116T090000Z\nRRULE:FREQ=DAILY;COUNT=4\nEXDATE;VALUE=DATE:20261117\nEXDATE;TZID=America/New_York:20261118T040000',
    );

    expect(starts(expand(text))).toEqual(['2026-11-16T09:00:00.000Z', '2026-11-19T09:00:00.000Z']);
  });

  it('expands a recurring all-day event', () => {
    const text = calendar('UID:d\nDTSTART;VALUE=DATE:20261116\nRRULE:FREQ=WEEKLY;COUNT=2');

    expect(expand(text).map((i) => [i.recurrenceId, i.start, i.end, i.allDay])).toEqual([
      ['2026-11-16T00:00:00.000Z', '2026-11-16T00:00:00.000Z', '2026-11-17T00:00:00.000Z', true],
      ['2026-11-23T00:00:00.000Z', '2026-11-23T00:00:00.000Z', '2026-11-24T00:00:00.000Z', true],
    ]);
  });

  it('matches an all-day override by the day its DATE-TIME RECURRENCE-ID names, in any member zone', () => {
    // Exchange names the day as zoned midnight; others in UTC (read in X-WR-TIMEZONE). Either replaces that day's occurrence.
    const text = calendar(
      'UID:h\nDTSTART;VALUE=DATE:20261116\nDTEND;VALUE=DATE:20261117\nRRULE:FREQ=DAILY;COUNT=3\nSUMMARY:Home',
      'UID:h\nRECURRENCE-ID;TZID=Europe/Berlin:20261117T000000\nDTSTART;VALUE=DATE:20261120\nDTEND;VALUE=DATE:20261121\nSUMMARY:Moved',
      'UID:h\nRECURRENCE-ID:20261117T230000Z\nDTSTART;VALUE=DATE:20261121\nDTEND;VALUE=DATE:20261122\nSUMMARY:Moved too',
    ).replace('PRODID:-//test//EN', 'PRODID:-//test//EN\r\nX-WR-TIMEZONE:Europe/Berlin');

    for (const memberZone of ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo']) {
      const instances = expandInstances(parseIcsFeed(text, { memberZone }), window('2026-11-14T00:00:00Z', '2026-11-24T00:00:00Z'));
      expect(instances.map((i) => i.title)).toEqual(['Home', 'Moved', 'Moved too']);
      // Each override carries the key of the occurrence it replaces: the 17th and the 18th, midnight in the member's zone.
      const first = Date.parse(instances[0].recurrenceId ?? '');
      expect(instances.map((i) => Date.parse(i.recurrenceId ?? '') - first)).toEqual([0, 86_400_000, 2 * 86_400_000]);
    }
  });

  it('expands a daily rule without end up to the window', () => {
    const instances = expand(
      calendar('UID:d\nDTSTART:20261101T090000Z\nRRULE:FREQ=DAILY'),
      window('2026-11-01T00:00:00Z', '2027-01-01T00:00:00Z'),
    );

    expect(instances).toHaveLength(61);
    expect(instances.at(-1)?.start).toBe('2026-12-31T09:00:00.000Z');
  });

  it('leaves out a FREQ=SECONDLY series needing more than 10,000 steps, reporting it, and keeps the rest', () => {
    const feed = parseIcsFeed(calendar('UID:s\nDTSTART:20261116T000000Z\nRRULE:FREQ=SECONDLY', 'UID:m\nDTSTART:20261116T090000Z'));
    const result = expandFeed(feed, window('2026-11-16T00:00:00Z', '2026-11-17T00:00:00Z'));

    expect(DEFAULT_EXPANSION_LIMITS.perSeries).toBe(10_000);
    expect(result.instances.map((i) => i.uid)).toEqual(['m']);
    expect(result.skipped).toEqual([
      { uid: 's', position: 1, line: 4, reason: 'the recurrence needs more than 10000 steps to reach the window; left out' },
    ]);
  });

  it('jumps a decade-old daily series ahead to the window: this week, within the per-series bound', () => {
    const text = calendar('UID:d\nDTSTART;TZID=Europe/Berlin:20160104T093000\nRRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR');
    const result = expandFeed(parseIcsFeed(text), window('2026-11-16T00:00:00Z', '2026-11-23T00:00:00Z'), { perSeries: 50, perFeed: 100 });

    expect(result.skipped).toEqual([]);
    expect(starts(result.instances)).toEqual([
      '2026-11-16T08:30:00.000Z',
      '2026-11-17T08:30:00.000Z',
      '2026-11-18T08:30:00.000Z',
      '2026-11-19T08:30:00.000Z',
      '2026-11-20T08:30:00.000Z',
    ]);
  });

  it('jumps a biweekly series by whole periods, keeping its weeks (INTERVAL=2)', () => {
    const text = calendar('UID:w\nDTSTART:20150105T100000Z\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO');
    // 2015-01-05 is a Monday; every other Monday since: 2026-11-16 is 619 weeks later (odd), 2026-11-23 is 620 (even).
    const result = expandFeed(parseIcsFeed(text), window('2026-11-10T00:00:00Z', '2026-12-01T00:00:00Z'), { perSeries: 50, perFeed: 100 });

    expect(starts(result.instances)).toEqual(['2026-11-23T10:00:00.000Z']);
  });

  it('walks a series with COUNT from DTSTART (COUNT counts from there)', () => {
    const text = calendar('UID:c\nDTSTART:20261101T090000Z\nRRULE:FREQ=DAILY;COUNT=10');

    expect(starts(expandInstances(parseIcsFeed(text), window('2026-11-09T00:00:00Z', '2026-11-20T00:00:00Z')))).toEqual([
      '2026-11-09T09:00:00.000Z',
      '2026-11-10T09:00:00.000Z',
    ]);
  });

  it('leaves out the series past the feed budget, reporting each, and keeps the ones within it', () => {
    const text = calendar(
      'UID:a\nDTSTART:20261116T000000Z\nRRULE:FREQ=MINUTELY;COUNT=100',
      'UID:b\nDTSTART:20261116T000000Z\nRRULE:FREQ=MINUTELY;COUNT=100',
      'UID:c\nDTSTART:20261116T000000Z\nRRULE:FREQ=MINUTELY;COUNT=100',
    );
    const feed = parseIcsFeed(text);
    const day = window('2026-11-16T00:00:00Z', '2026-11-17T00:00:00Z');

    expect(expandFeed(feed, day, { perSeries: 200, perFeed: 400 })).toMatchObject({ skipped: [] });
    expect(expandInstances(feed, day, { perSeries: 200, perFeed: 400 })).toHaveLength(300);
    const over = expandFeed(feed, day, { perSeries: 200, perFeed: 250 });
    expect(new Set(over.instances.map((i) => i.uid))).toEqual(new Set(['a', 'b']));
    expect(over.skipped).toEqual([
      { uid: 'c', position: 3, line: 14, reason: 'the feed needs more than 250 recurrence steps in all; this series is left out' },
    ]);
  });
});

describe('expandInstances time zones', () => {
  it('resolves a TZID the feed does not define as an IANA zone', () => {
    const text = calendar('UID:ny\nDTSTART;TZID=America/New_York:20261116T090000\nDTEND;TZID=America/New_York:20261116T093000');

    expect(expand(text).map((i) => [i.start, i.end])).toEqual([['2026-11-16T14:00:00.000Z', '2026-11-16T14:30:00.000Z']]);
  });

  it('reads floating times and unknown TZIDs as UTC', () => {
    const text = calendar('UID:f\nDTSTART:20261116T090000', 'UID:m\nDTSTART;TZID=Mars/Olympus_Mons:20261116T100000');

    expect(expand(text).map((i) => [i.uid, i.start])).toEqual([
      ['f', '2026-11-16T09:00:00.000Z'],
      ['m', '2026-11-16T10:00:00.000Z'],
    ]);
  });

  it('prefers the feed VTIMEZONE and does not leak it into the next feed', () => {
    const zone = [
      'BEGIN:VTIMEZONE',
      'TZID:Europe/Berlin',
      'BEGIN:STANDARD',
      'DTSTART:19700101T000000',
      'TZOFFSETFROM:+0500',
      'TZOFFSETTO:+0500',
      'END:STANDARD',
      'END:VTIMEZONE',
    ].join('\r\n');
    const withZone = calendar('UID:z\nDTSTART;TZID=Europe/Berlin:20261116T090000').replace(
      'PRODID:-//test//EN',
      `PRODID:-//test//EN\r\n${zone}`,
    );
    const withoutZone = calendar('UID:z\nDTSTART;TZID=Europe/Berlin:20261116T090000');

    expect(starts(expand(withZone))).toEqual(['2026-11-16T04:00:00.000Z']);
    expect(starts(expand(withoutZone))).toEqual(['2026-11-16T08:00:00.000Z']);
    expect(ICAL.TimezoneService.has('Europe/Berlin')).toBe(false);
  });
});
