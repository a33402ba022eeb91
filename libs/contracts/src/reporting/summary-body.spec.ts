import { stringify } from 'csv-stringify/sync';
import { SUMMARY_METRICS } from './reporting.commands';
import {
  summaryCsv,
  summaryDataJson,
  summaryDataJsonOfColumns,
  summaryDocumentHead,
  summaryDocumentHeadParts,
  summaryDocumentJson,
  summaryDocumentTail,
  summaryGroupCount,
  summaryTuplesOf,
  summaryTuplesOfColumns,
  type SummaryColumns,
  type SummaryTuple,
} from './summary-body';

describe('the summary body (D-50, D-51: written once by the reporting service, passed through by the gateway)', () => {
  const keyNames = ['member_id', 'work_type'];
  const rows: SummaryTuple[] = [
    ['m-1', 'reactive', 3_600, 60, 1, 2, 0, '0.000000001', 10, 5],
    ['m-1', null, 0, 0, 0, 0, 3, '0', 0, 0],
    ['m "2",\n', null, 12, 0, 0, 0, 0, '12.5', 0, 0],
  ];
  const asObjects = rows.map((r) => ({
    group: { member_id: r[0], work_type: r[1] },
    ...Object.fromEntries(SUMMARY_METRICS.map((name, i) => [name, r[2 + i]])),
  }));

  it('writes the data array as JSON.stringify writes the rows: keys escaped, null keys kept, usage_cost a string', () => {
    expect(summaryDataJson(keyNames, rows)).toBe(JSON.stringify(asObjects));
    expect((JSON.parse(summaryDataJson(keyNames, rows)) as unknown[])[1]).toEqual({
      group: { member_id: 'm-1', work_type: null },
      tracked_seconds: 0,
      paused_seconds: 0,
      session_count: 0,
      linked_event_count: 0,
      outside_session_event_count: 3,
      usage_cost: '0',
      input_tokens: 0,
      output_tokens: 0,
    });
  });

  // Columns as Postgres writes them: to_json escapes as JSON.stringify does (quotes, backslashes, control characters).
  const tricky: SummaryTuple[] = [...rows, ['\u001f\t"\\', 'é ☃ 𝄞', 1, 2, 3, 4, 5, '0.25', 6, 7]];
  const columnsOf = (tuples: readonly SummaryTuple[], k: number): SummaryColumns =>
    (tuples[0] ?? new Array<null>(k + SUMMARY_METRICS.length).fill(null)).map((_, j) =>
      tuples.map((t) => (j < k || j === k + 5 ? JSON.stringify(t[j]) : String(t[j]))),
    );

  it('writes the same data array from columns of JSON texts as from tuples, and reads the columns back as the tuples', () => {
    const columns = columnsOf(tricky, keyNames.length);
    expect(summaryDataJsonOfColumns(keyNames, columns)).toBe(summaryDataJson(keyNames, tricky));
    expect(summaryTuplesOfColumns(columns)).toEqual(tricky);
    const meta = { as_of: '2026-01-01T00:00:00.000Z', tz: 'UTC', from: '2025-01-01', to: '2025-12-31', totals: {} };
    expect(summaryDocumentJson(keyNames, { columns }, meta)).toBe(summaryDocumentJson(keyNames, { rows: tricky }, meta));
    const noKeys: SummaryTuple[] = [[1, 2, 3, 4, 5, '6', 7, 8]];
    expect(summaryDataJsonOfColumns([], columnsOf(noKeys, 0))).toBe(summaryDataJson([], noKeys));
    const empty = keyNames.concat(SUMMARY_METRICS).map(() => []);
    expect(summaryDataJsonOfColumns(keyNames, empty)).toBe('[]');
    expect(summaryTuplesOfColumns(empty)).toEqual([]);
  });

  it('writes the document head in parts that join to the head, and the head and tail join to the document', () => {
    const columns = columnsOf(tricky, keyNames.length);
    const meta = { as_of: '2026-01-01T00:00:00.000Z', tz: 'UTC', from: '2025-01-01', to: '2025-12-31', totals: {} };
    const head = summaryDocumentHead(keyNames, { columns });
    expect(head + summaryDocumentTail(meta)).toBe(summaryDocumentJson(keyNames, { columns }, meta));
    for (const size of [1, 2, 3, 4, 1_000]) expect(summaryDocumentHeadParts(keyNames, { columns }, size).join('')).toBe(head);
    expect(summaryDocumentHeadParts(keyNames, { rows: tricky }).join('')).toBe(head);
    const empty = keyNames.concat(SUMMARY_METRICS).map(() => []);
    expect(summaryDocumentHeadParts(keyNames, { columns: empty }, 2).join('')).toBe('{"data":[],"meta":');
  });

  it('writes column sets (a summary read in runs of members) as the one set of their groups in order, empty sets included', () => {
    const columns = columnsOf(tricky, keyNames.length);
    const head = summaryDocumentHead(keyNames, { columns });
    const empty = keyNames.concat(SUMMARY_METRICS).map(() => []);
    for (let cut = 0; cut <= tricky.length; cut++) {
      const columnSets = [columnsOf(tricky.slice(0, cut), keyNames.length), empty, columnsOf(tricky.slice(cut), keyNames.length)];
      for (const size of [1, 2, 1_000]) expect(summaryDocumentHeadParts(keyNames, { columnSets }, size).join('')).toBe(head);
      expect(summaryDocumentHead(keyNames, { columnSets })).toBe(head);
      expect(summaryTuplesOf({ columnSets })).toEqual(tricky);
      expect(summaryGroupCount({ columnSets })).toBe(tricky.length);
    }
    expect(summaryDocumentHeadParts(keyNames, { columnSets: [] }).join('')).toBe('{"data":[],"meta":');
    expect(summaryTuplesOf({ rows: tricky })).toEqual(tricky);
  });

  it('writes an empty group for a summary without group keys, and an empty array without groups', () => {
    expect(summaryDataJson([], [[1, 2, 3, 4, 5, '6', 7, 8]])).toBe(
      JSON.stringify([Object.assign({ group: {} }, Object.fromEntries(SUMMARY_METRICS.map((n, i) => [n, i === 5 ? '6' : i + 1])))]),
    );
    expect(summaryDataJson(keyNames, [])).toBe('[]');
  });

  it('writes the CSV as csv-stringify does (RFC 4180, CRLF, header row, null as an empty field)', () => {
    const expected = stringify([[...keyNames, ...SUMMARY_METRICS], ...rows.map((r) => r.map((v) => (v === null ? '' : v)))], {
      record_delimiter: '\r\n',
    });
    expect(summaryCsv(keyNames, rows)).toBe(expected);
    expect(summaryCsv(keyNames, [])).toBe(`${[...keyNames, ...SUMMARY_METRICS].join(',')}\r\n`);
  });
});
