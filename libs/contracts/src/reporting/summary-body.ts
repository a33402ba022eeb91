import { SUMMARY_METRICS } from './reporting.commands';

/**
 * One group of a summary as the reporting service holds it: the group key
 * values in `groupBy` order (`null` for none), then the metrics in
 * `SUMMARY_METRICS` order — every metric a number except `usage_cost`, an
 * exact decimal string.
 */
export type SummaryTuple = ReadonlyArray<string | number | null>;

/**
 * The summary's `data` array as the API answers it (D-50): one
 * `{ group, …metrics }` object per group, written as one string in one pass.
 * Each distinct group key value is escaped once; no object per group.
 */
export function summaryDataJson(keyNames: readonly string[], rows: readonly SummaryTuple[]): string {
  const k = keyNames.length;
  const heads = keyNames.map((name, j) => `${j === 0 ? '' : ','}${JSON.stringify(name)}:`);
  const escaped = keyNames.map(() => new Map<string | number | null, string>());
  const parts: string[] = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    let group = '';
    for (let j = 0; j < k; j++) {
      const held = escaped[j];
      let text = held.get(r[j]);
      if (text === undefined) {
        text = JSON.stringify(r[j]);
        held.set(r[j], text);
      }
      group += heads[j] + text;
    }
    parts[i] =
      `{"group":{${group}},"tracked_seconds":${r[k]},"paused_seconds":${r[k + 1]},"session_count":${r[k + 2]},` +
      `"linked_event_count":${r[k + 3]},"outside_session_event_count":${r[k + 4]},"usage_cost":${JSON.stringify(String(r[k + 5]))},` +
      `"input_tokens":${r[k + 6]},"output_tokens":${r[k + 7]}}`;
  }
  return `[${parts.join(',')}]`;
}

/**
 * A summary's groups as columns of JSON texts, as Postgres writes them: one
 * list per group key (each value a JSON string or `null`), then one per
 * metric in `SUMMARY_METRICS` order (a number; `usage_cost` a JSON string),
 * every list holding the groups in the same order.
 */
export type SummaryColumns = ReadonlyArray<ReadonlyArray<string>>;

/**
 * The `data` array of `summaryDataJson` written from columns of JSON texts:
 * the same bytes, with no value parsed or escaped again (each text is already
 * JSON).
 */
export function summaryDataJsonOfColumns(keyNames: readonly string[], columns: SummaryColumns): string {
  return `[${columnGroupsJson(keyNames, columns, 0, columns[0]?.length ?? 0)}]`;
}

/** The groups `start` … `end - 1` of columns of JSON texts as `summaryDataJson` writes them, comma-separated, no brackets. */
function columnGroupsJson(keyNames: readonly string[], columns: SummaryColumns, start: number, end: number): string {
  const k = keyNames.length;
  const heads = keyNames.map((name, j) => `${j === 0 ? '' : ','}${JSON.stringify(name)}:`);
  const [tracked, paused, sessions, linked, outside, cost, input, output] = columns.slice(k);
  const parts: string[] = new Array<string>(Math.max(0, end - start));
  for (let i = start; i < end; i++) {
    let group = '';
    for (let j = 0; j < k; j++) group += heads[j] + columns[j][i];
    parts[i - start] =
      `{"group":{${group}},"tracked_seconds":${tracked[i]},"paused_seconds":${paused[i]},"session_count":${sessions[i]},` +
      `"linked_event_count":${linked[i]},"outside_session_event_count":${outside[i]},"usage_cost":${cost[i]},` +
      `"input_tokens":${input[i]},"output_tokens":${output[i]}}`;
  }
  return parts.join(',');
}

/** Columns of JSON texts read back as tuples (for the CSV, and for merging live sessions in). */
export function summaryTuplesOfColumns(columns: SummaryColumns): SummaryTuple[] {
  const lists = columns.map((column) => JSON.parse(`[${column.join(',')}]`) as Array<string | number | null>);
  const n = lists[0]?.length ?? 0;
  const tuples: SummaryTuple[] = new Array<SummaryTuple>(n);
  for (let i = 0; i < n; i++) {
    const tuple = new Array<string | number | null>(lists.length);
    for (let j = 0; j < lists.length; j++) tuple[j] = lists[j][i];
    tuples[i] = tuple;
  }
  return tuples;
}

/**
 * A summary's groups as the document functions take them: tuples, columns of JSON texts, or several sets of
 * columns whose groups follow one another (a summary read by several statements, each over a run of members).
 */
export type SummaryGroups = { rows: readonly SummaryTuple[] } | { columns: SummaryColumns } | { columnSets: readonly SummaryColumns[] };

/** The column sets of `groups` (none for tuples). */
const columnSetsOf = (groups: SummaryGroups): readonly SummaryColumns[] =>
  'rows' in groups ? [] : 'columns' in groups ? [groups.columns] : groups.columnSets;

/** How many groups `groups` holds. */
export function summaryGroupCount(groups: SummaryGroups): number {
  return 'rows' in groups ? groups.rows.length : columnSetsOf(groups).reduce((n, columns) => n + (columns[0]?.length ?? 0), 0);
}

/** A report's `meta` (D-50, D-51), in the order the API writes it. */
export interface ReportMeta {
  as_of: string;
  tz: string;
  from: string;
  to: string;
  totals?: Record<string, unknown>;
  cursor?: string | null;
}

/** The summary's whole JSON document (D-50): `{ data, meta }`, its groups as tuples or as columns of JSON texts. */
export function summaryDocumentJson(keyNames: readonly string[], groups: SummaryGroups, meta: ReportMeta): string {
  return summaryDocumentHead(keyNames, groups) + summaryDocumentTail(meta);
}

/**
 * The summary document up to its `meta` value: `{"data":[…],"meta":`. It does not depend on `as_of`, so a
 * rendered head can serve many requests, each followed by its own `summaryDocumentTail`.
 */
export function summaryDocumentHead(keyNames: readonly string[], groups: SummaryGroups): string {
  if ('rows' in groups) return `{"data":${summaryDataJson(keyNames, groups.rows)},"meta":`;
  return summaryDocumentHeadParts(keyNames, groups).join('');
}

/**
 * `summaryDocumentHead` in parts of at most `groupsPerPart` groups each (from columns; from tuples, one part): the
 * same text once joined, written without one string of the whole document, so each part can be encoded and
 * compressed as it comes.
 */
export function summaryDocumentHeadParts(keyNames: readonly string[], groups: SummaryGroups, groupsPerPart = 1_000): string[] {
  if ('rows' in groups) return [summaryDocumentHead(keyNames, groups)];
  const parts = ['{"data":['];
  let first = true;
  for (const columns of columnSetsOf(groups)) {
    const n = columns[0]?.length ?? 0;
    for (let i = 0; i < n; i += groupsPerPart) {
      parts.push((first ? '' : ',') + columnGroupsJson(keyNames, columns, i, Math.min(n, i + groupsPerPart)));
      first = false;
    }
  }
  parts.push('],"meta":');
  return parts;
}

/** The groups of `groups` as tuples (for the CSV, and for merging live sessions in). */
export function summaryTuplesOf(groups: SummaryGroups): SummaryTuple[] {
  return 'rows' in groups ? [...groups.rows] : columnSetsOf(groups).flatMap((columns) => summaryTuplesOfColumns(columns));
}

/** The summary document after `summaryDocumentHead`: the `meta` value and the closing brace. */
export function summaryDocumentTail(meta: ReportMeta): string {
  return `${JSON.stringify(meta)}}`;
}

/** An RFC 4180 field: quoted when it holds a comma, a quote or a line break; `null` is empty. */
const csvField = (value: string | number | null): string => {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** The summary as CSV (D-51): CRLF, one header row (group keys first, then the metrics), one line per group. */
export function summaryCsv(keyNames: readonly string[], rows: readonly SummaryTuple[]): string {
  const lines: string[] = new Array<string>(rows.length + 1);
  lines[0] = [...keyNames, ...SUMMARY_METRICS].map(csvField).join(',');
  for (let i = 0; i < rows.length; i++) lines[i + 1] = rows[i].map(csvField).join(',');
  return `${lines.join('\r\n')}\r\n`;
}
