import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { summaryDocumentHead, summaryDocumentJson, summaryDocumentTail, type SummaryTuple } from '@worktrack/contracts';
import { ReportingConfig } from '../reporting.config';
import { gzipHead, gzipWithTail, SummaryCache, type SummaryKey } from './summary-cache';

/** A summary of `n` groups with multi-byte keys (UTF-8 lengths differ from string lengths). */
const rowsOf = (n: number): SummaryTuple[] =>
  Array.from({ length: n }, (_, i) => [
    `m-${i % 37} é☃𝄞`,
    `2025-01-${String((i % 28) + 1).padStart(2, '0')}`,
    i * 3600,
    60,
    1,
    2,
    0,
    `${i}.25`,
    10,
    5,
  ]);
const meta = (asOf: string) => ({ as_of: asOf, tz: 'Europe/Berlin', from: '2025-01-01', to: '2025-12-31', totals: { tracked_seconds: 1 } });
const keyNames = ['member_id', 'week'];

/** Serves `body` as `Content-Encoding: gzip` and reads it with fetch, which inflates it as a browser does. */
async function throughFetch(body: Buffer): Promise<string> {
  const server = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return await res.text();
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('the cached summary, spliced (ADR 0018)', () => {
  it.each([0, 1, 2_000, 20_000])(
    'decodes byte-identically to the whole document with %i groups (gunzip and fetch)',
    async (n) => {
      const rows = rowsOf(n);
      const head = gzipHead(Buffer.from(summaryDocumentHead(keyNames, { rows }), 'utf8'));
      for (const asOf of ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.500Z']) {
        const whole = summaryDocumentJson(keyNames, { rows }, meta(asOf));
        const spliced = gzipWithTail(head, summaryDocumentTail(meta(asOf)));
        expect(gunzipSync(spliced).equals(Buffer.from(whole, 'utf8'))).toBe(true);
        expect(await throughFetch(spliced)).toBe(whole);
      }
    },
    30_000,
  );

  it('decodes with an empty tail (the CSV is cached whole)', async () => {
    const csv = 'a,b\r\n1,2\r\n'.repeat(10_000);
    const spliced = gzipWithTail(gzipHead(Buffer.from(csv, 'utf8')), '');
    expect(gunzipSync(spliced).toString('utf8')).toBe(csv);
    expect(await throughFetch(spliced)).toBe(csv);
  });
});

describe('the summary cache', () => {
  const config = (bytes: number): ReportingConfig =>
    Object.assign(new ReportingConfig(), { REPORT_CACHE_BYTES: bytes, REPORT_CACHE_MIN_BYTES: 10 });
  const entry = (size: number) => ({ head: { bytes: Buffer.alloc(size), crc: 0, length: size }, totals: {} });
  const key: SummaryKey = {
    workspaceId: 'w',
    revision: '1',
    format: 'json',
    from: '2025-01-01',
    to: '2025-12-31',
    tz: 'UTC',
    groupBy: ['member', 'week'],
    filters: {},
    members: [
      { member_id: 'a', kind: 'human', timezone: 'UTC' },
      { member_id: 'b', kind: 'agent', timezone: 'UTC' },
    ],
  };

  it('keys on every part: the revision, each parameter, each filter, the visible members (D-52) — not their order', () => {
    const k = SummaryCache.keyOf(key);
    expect(SummaryCache.keyOf({ ...key, members: [...key.members].reverse() })).toBe(k);
    expect(SummaryCache.keyOf({ ...key, filters: { workType: undefined } })).toBe(k);
    const others: Array<Partial<SummaryKey>> = [
      { workspaceId: 'v' },
      { revision: '2' },
      { format: 'csv' },
      { from: '2025-01-02' },
      { to: '2025-12-30' },
      { tz: 'Europe/Berlin' },
      { groupBy: ['week', 'member'] },
      { filters: { workType: 'reactive' } },
      { filters: { projectId: 'p' } },
      { filters: { goalId: 'g' } },
      { filters: { memberKind: 'agent' } },
      { members: key.members.slice(0, 1) },
      { members: [key.members[0], { ...key.members[1], timezone: 'Europe/Berlin' }] },
    ];
    for (const other of others) expect(SummaryCache.keyOf({ ...key, ...other })).not.toBe(k);
  });

  it('holds at most its bound in bytes, the least recently used out first', () => {
    const cache = new SummaryCache(config(100));
    cache.set('a', entry(40));
    cache.set('b', entry(40));
    expect(cache.get('a')).toBeDefined();
    cache.set('c', entry(40));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.size).toBe(80);
    cache.set('d', entry(101));
    expect(cache.get('d')).toBeUndefined();
    expect(cache.size).toBe(80);
  });

  it('keeps nothing when turned off, and no document below its minimum', () => {
    const off = new SummaryCache(config(0));
    off.set('a', entry(1));
    expect(off.get('a')).toBeUndefined();
    expect(off.worthKeeping(1_000)).toBe(false);
    expect(new SummaryCache(config(100)).worthKeeping(9)).toBe(false);
  });
});
