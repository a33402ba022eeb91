import ICAL from 'ical.js';

/**
 * The text layer of an ICS feed: physical lines, the BEGIN/END structure
 * checked as a whole, the repairs real exports need, and the parse of the
 * calendar's skeleton and of each block on its own.
 */

/**
 * The feed as a whole is not a usable VCALENDAR. `line` is the 1-based
 * physical line when it is known. The message never quotes the feed's
 * content: it is shown on the connector, and echoing what a URL answered
 * would let a feed URL probe internal services.
 */
export class IcsParseError extends Error {
  override readonly name = 'IcsParseError';

  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(line === null ? message : `line ${line}: ${message}`);
  }
}

export interface PhysicalLine {
  number: number;
  text: string;
}

/** A top-level VEVENT: the lines of its BEGIN and END (1-based, inclusive). */
interface Block {
  begin: number;
  end: number;
}

export function physicalLines(text: string): PhysicalLine[] {
  return text.split(/\r\n|\n|\r/).map((line, index) => ({ number: index + 1, text: line }));
}

/**
 * Checks the BEGIN/END nesting ical.js only half-checks, with line numbers:
 * one VCALENDAR, every component closed by its own END, nothing after it.
 * Returns each top-level VEVENT's lines, in order.
 */
export function checkStructure(lines: PhysicalLine[]): Block[] {
  const stack: Array<{ name: string; line: number }> = [];
  const blocks: Block[] = [];
  let seenCalendar = false;
  for (const { number, text } of lines) {
    if (text.trim() === '' || text.startsWith(' ') || text.startsWith('\t')) continue;
    const match = /^(BEGIN|END):(.*)$/i.exec(text.trimEnd());
    const keyword = match?.[1]?.toUpperCase();
    const name = match?.[2]?.trim().toUpperCase() ?? '';
    if (stack.length === 0) {
      if (seenCalendar) throw new IcsParseError('unexpected content after END:VCALENDAR', number);
      if (keyword !== 'BEGIN' || name !== 'VCALENDAR') {
        throw new IcsParseError('not an iCalendar feed: it does not start with BEGIN:VCALENDAR', number);
      }
    }
    if (keyword === 'BEGIN') {
      if (name === 'VEVENT' && stack.length === 1) blocks.push({ begin: number, end: number });
      stack.push({ name, line: number });
      seenCalendar = true;
    } else if (keyword === 'END') {
      const open = stack.pop();
      if (!open) throw new IcsParseError(`END:${safeName(name)} without a BEGIN`, number);
      if (open.name !== name) {
        throw new IcsParseError(`END:${safeName(name)} does not close BEGIN:${safeName(open.name)} of line ${open.line}`, number);
      }
      if (name === 'VEVENT' && stack.length === 1) {
        const last = blocks.at(-1);
        if (last) last.end = number;
      }
    }
  }
  if (!seenCalendar) throw new IcsParseError('not an iCalendar feed: the feed is empty');
  const open = stack.at(-1);
  if (open) {
    const last = lines.findLast((l) => l.text.trim() !== '')?.number ?? lines.length;
    throw new IcsParseError(`truncated feed: it ends inside BEGIN:${safeName(open.name)} of line ${open.line}`, last);
  }
  return blocks;
}

/** A component name as an error may show it: iCalendar's own names only, never arbitrary content. */
function safeName(name: string): string {
  return /^[A-Z][A-Z0-9-]{0,30}$/.test(name) ? name : '(unknown component)';
}

/**
 * The VCALENDAR without its VEVENTs: its properties and VTIMEZONEs, which
 * each VEVENT is attached to. If the header cannot be read as a whole, each
 * VTIMEZONE is tried on its own and unreadable ones are dropped (their TZIDs
 * then resolve by name); a header beyond that is refused.
 */
export function parseSkeleton(lines: PhysicalLine[], blocks: Block[]): ICAL.Component {
  const inBlock = new Set<number>();
  for (const b of blocks) for (let n = b.begin; n <= b.end; n++) inBlock.add(n);
  const skeleton = lines.filter((l) => !inBlock.has(l.number));
  try {
    const jcal: unknown = ICAL.parse(repair(unfold(skeleton)).join('\r\n'));
    if (Array.isArray(jcal) && jcal[0] === 'vcalendar') return new ICAL.Component(jcal as [string, unknown[], unknown[]]);
  } catch {
    // fall through to the per-VTIMEZONE attempt
  }
  const calendar = new ICAL.Component('vcalendar');
  const logical = repair(unfold(skeleton));
  const wr = logical.find((l) => /^X-WR-TIMEZONE[;:]/i.test(l));
  if (wr) {
    try {
      calendar.addProperty(ICAL.Property.fromString(wr));
    } catch {
      // an unreadable X-WR-TIMEZONE is ignored
    }
  }
  let zone: string[] | null = null;
  for (const line of logical) {
    if (/^BEGIN:VTIMEZONE$/i.test(line.trim())) zone = [];
    if (zone) zone.push(line);
    if (zone && /^END:VTIMEZONE$/i.test(line.trim())) {
      try {
        const jcal: unknown = ICAL.parse(zone.join('\r\n'));
        if (Array.isArray(jcal) && jcal[0] === 'vtimezone')
          calendar.addSubcomponent(new ICAL.Component(jcal as [string, unknown[], unknown[]]));
      } catch {
        // dropped: its TZID resolves by name
      }
      zone = null;
    }
  }
  return calendar;
}

/** One VEVENT's lines, repaired and parsed, attached to the calendar (for its VTIMEZONEs). */
export function parseBlock(blockLines: PhysicalLine[], calendar: ICAL.Component): ICAL.Component {
  const jcal: unknown = ICAL.parse(repair(unfold(blockLines)).join('\r\n'));
  if (!Array.isArray(jcal) || jcal[0] !== 'vevent') throw new Error('not a single VEVENT');
  return new ICAL.Component(jcal as [string, unknown[], unknown[]], calendar);
}

/** RFC 5545 unfolding: a line starting with a space or tab continues the previous one. */
export function unfold(lines: PhysicalLine[]): string[] {
  const out: string[] = [];
  for (const { text } of lines) {
    if ((text.startsWith(' ') || text.startsWith('\t')) && out.length > 0) out[out.length - 1] += text.slice(1);
    else if (text.trim() !== '') out.push(text);
  }
  return out;
}

const DATE_VALUED = /^(DTSTART|DTEND|DUE|RECURRENCE-ID|EXDATE|RDATE)((?:;[^:]*)?):(\d{8}(?:,\d{8})*)\s*$/i;
/** `;TZID=(UTC-05:00) Eastern Time (US & Canada):2026…` — an unquoted TZID holding a colon. */
const UNQUOTED_DISPLAY_TZID = /;TZID=(\((?:UTC|GMT)[^)]*\)[^;:"]*)(?=[;:])/i;
/** `;TZID="W. Europe Standard Time:2026…` — an opening quote never closed before the value. */
const UNCLOSED_TZID = /;TZID="([^";:]*)(?=[;:])/i;
/** `;TZID="W. Europe Standard Time:20200609T090000"` — Exchange's quote closing after the value (the last colon starts it). */
const QUOTE_AROUND_VALUE_TZID = /;TZID="([^"]*):([^":]*)"\s*$/i;
/** `;TZID='Europe/Berlin'` — single quotes are not iCalendar quoting. */
const SINGLE_QUOTED_TZID = /;TZID='([^']*)'/i;

/**
 * Repairs what real exporters get wrong, line by line, before ical.js reads
 * it: DATE values without `VALUE=DATE` (ical.js would read them as broken
 * DATE-TIMEs) and TZID parameters quoted wrongly or not at all.
 */
function repair(lines: string[]): string[] {
  return lines.map((line) => {
    let fixed = line;
    if (QUOTE_AROUND_VALUE_TZID.test(fixed))
      fixed = fixed.replace(QUOTE_AROUND_VALUE_TZID, (_m, tz: string, value: string) => `;TZID="${tz}":${value}`);
    if (SINGLE_QUOTED_TZID.test(fixed)) fixed = fixed.replace(SINGLE_QUOTED_TZID, (_m, tz: string) => `;TZID="${tz}"`);
    if (UNQUOTED_DISPLAY_TZID.test(fixed)) fixed = fixed.replace(UNQUOTED_DISPLAY_TZID, (_m, tz: string) => `;TZID="${tz.trim()}"`);
    else if (UNCLOSED_TZID.test(fixed) && !/;TZID="[^"]*"/i.test(fixed))
      fixed = fixed.replace(UNCLOSED_TZID, (_m, tz: string) => `;TZID="${tz}"`);
    const date = DATE_VALUED.exec(fixed);
    if (date && !/;VALUE=/i.test(date[2] ?? '')) fixed = `${date[1]}${date[2] ?? ''};VALUE=DATE:${date[3]}`;
    return fixed;
  });
}

/** The UID of a VEVENT ical.js could not read, from its text: for the skip report only. */
export function rawUid(blockLines: PhysicalLine[]): string | null {
  const line = unfold(blockLines).find((l) => /^UID[;:]/i.test(l));
  const value = line?.slice(line.indexOf(':') + 1).trim();
  return value ? value.slice(0, 200) : null;
}

/**
 * ical.js errors carry no line numbers but quote the culprit (`invalid line
 * (no token ";" or ":") "<line>"`, `invalid frequency "BOGUS"`): the first
 * line holding the first quoted fragment of 3+ characters.
 */
export function lineOf(lines: PhysicalLine[], message: string): number | null {
  for (const [, quoted = ''] of message.matchAll(/"([^"]*)"/g)) {
    if (quoted.length < 3) continue;
    const probe = quoted.slice(0, 60);
    const found = lines.find((l) => l.text.includes(probe));
    if (found) return found.number;
  }
  return null;
}

/** The line of the first `name` property after the BEGIN:VEVENT on line `from`. */
export function propertyLine(lines: PhysicalLine[], from: number, name: string): number {
  const pattern = new RegExp(`^${name}[;:]`, 'i');
  return lines.find((l) => l.number > from && pattern.test(l.text))?.number ?? from;
}

export function cap(text: string): string {
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
