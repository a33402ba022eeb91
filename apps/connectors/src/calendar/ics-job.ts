import { expandFeed, IcsParseError, parseIcsFeed, type CalendarInstance, type SkippedEvent } from './ics-feed';

/**
 * One feed's parse and expansion, as the calendar worker thread runs it
 * (structured-clone data in, structured-clone data out). Pure.
 */
export interface ExpandJob {
  text: string;
  memberZone: string;
  fromMs: number;
  toMs: number;
}

export type ExpandJobResult =
  { ok: true; instances: CalendarInstance[]; skipped: SkippedEvent[] } | { ok: false; message: string; line: number | null };

export function runExpandJob(job: ExpandJob): ExpandJobResult {
  try {
    const feed = parseIcsFeed(job.text, { memberZone: job.memberZone });
    const expanded = expandFeed(feed, { from: new Date(job.fromMs), to: new Date(job.toMs) });
    return { ok: true, instances: expanded.instances, skipped: [...feed.skipped, ...expanded.skipped] };
  } catch (error) {
    if (error instanceof IcsParseError) return { ok: false, message: error.message, line: error.line };
    throw error;
  }
}
