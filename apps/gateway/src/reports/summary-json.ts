import type { SummaryColumnsV1 } from '@worktrack/contracts';

/** A report's `meta` (D-50, D-51). */
export interface ReportMeta {
  as_of: string;
  tz: string;
  from: string;
  to: string;
  totals?: Record<string, unknown>;
  cursor?: string | null;
}

/**
 * The summary's JSON body built as one string in one pass (D-50 shape): each
 * distinct group key value is escaped once, metrics are numbers and the exact
 * decimal `usage_cost` a string — no object per group.
 */
export function summaryJson(columns: SummaryColumnsV1, meta: ReportMeta): string {
  const keyJson = columns.keys.map((k) => k.values.map((v) => JSON.stringify(v)));
  const keyHead = columns.keys.map((k, j) => `${j === 0 ? '' : ','}${JSON.stringify(k.name)}:`);
  const c = columns;
  const parts: string[] = [];
  const n = c.tracked_seconds.length;
  for (let i = 0; i < n; i++) {
    let group = '';
    for (let j = 0; j < keyHead.length; j++) group += keyHead[j] + keyJson[j][c.keys[j].index[i]];
    parts.push(
      `{"group":{${group}},"tracked_seconds":${c.tracked_seconds[i]},"paused_seconds":${c.paused_seconds[i]},` +
        `"session_count":${c.session_count[i]},"linked_event_count":${c.linked_event_count[i]},` +
        `"outside_session_event_count":${c.outside_session_event_count[i]},"usage_cost":${JSON.stringify(c.usage_cost[i])},` +
        `"input_tokens":${c.input_tokens[i]},"output_tokens":${c.output_tokens[i]}}`,
    );
  }
  return `{"data":[${parts.join(',')}],"meta":${JSON.stringify(meta)}}`;
}
