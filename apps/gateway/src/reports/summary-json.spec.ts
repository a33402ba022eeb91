import { summaryRowsOf, type SummaryColumnsV1 } from '@worktrack/contracts';
import { summaryJson } from './summary-json';

describe('summaryJson (D-50: the summary body written in one pass from the columnar reply)', () => {
  it('equals JSON.stringify of the rows and meta, keys escaped, null keys kept, usage_cost a string', () => {
    const columns: SummaryColumnsV1 = {
      keys: [
        { name: 'member_id', values: ['m-1', 'm "2"\n'], index: [0, 0, 1] },
        { name: 'work_type', values: ['reactive', null], index: [0, 1, 1] },
      ],
      tracked_seconds: [3_600, 0, 12],
      paused_seconds: [60, 0, 0],
      session_count: [1, 0, 0],
      linked_event_count: [2, 0, 0],
      outside_session_event_count: [0, 3, 0],
      usage_cost: ['0.000000001', '0', '12.5'],
      input_tokens: [10, 0, 0],
      output_tokens: [5, 0, 0],
    };
    const meta = {
      as_of: '2026-04-10T00:00:00.000Z',
      tz: 'Asia/Kolkata',
      from: '2026-04-10',
      to: '2026-04-11',
      totals: { tracked_seconds: 3_612 },
    };
    const body = summaryJson(columns, meta);
    expect(body).toBe(JSON.stringify({ data: [...summaryRowsOf(columns)], meta }));
    expect((JSON.parse(body) as { data: unknown[] }).data[1]).toEqual({
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
});
