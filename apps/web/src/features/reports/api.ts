import { useQuery } from '@tanstack/react-query';
import type { components, operations } from '@worktrack/sdk';
import { api } from '../../lib/api-client';
import { parseError } from '../../lib/errors';

/*
 * The reports routes (D-50 … D-52) through the typed client generated from
 * the served document (libs/sdk): the app's fetch underneath (bearer, one
 * refresh on a 401, errors as ApiError).
 */

export const GROUP_KEYS = ['member', 'member_kind', 'work_type', 'project', 'goal', 'day', 'week'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

/** The metrics of a group and of the totals (D-50). */
export type SummaryMetrics = components['schemas']['ReportMetricsBody'];
/** A group's keys: only the ones asked for in `group_by` are present; session keys are null for events and usage outside any session. */
export type SummaryGroup = components['schemas']['ReportGroupBody'];
export type SummaryRow = components['schemas']['SummaryRowBody'];
export type Summary = operations['reports.summary']['responses'][200]['content']['application/json'];

type SummaryParams = operations['reports.summary']['parameters']['query'];

export interface SummaryQuery extends Omit<SummaryParams, 'group_by' | 'cursor' | 'limit'> {
  /** Up to two keys. */
  group_by?: GroupKey[];
}

/** The route's query for a SummaryQuery: `group_by` comma-separated (absent values are left out of the URL). */
export function summaryParams({ group_by, ...filters }: SummaryQuery): SummaryParams {
  return { ...filters, group_by: group_by && group_by.length > 0 ? group_by.join(',') : undefined };
}

/** `GET /v1/reports/summary` as JSON (D-50). */
export async function fetchSummary(query: SummaryQuery): Promise<Summary> {
  const { data, error, response } = await api.GET('/reports/summary', {
    params: { query: summaryParams(query) },
    headers: { accept: 'application/json' },
  });
  // The route also answers CSV (a string); asked for JSON, anything else is a failure.
  if (!response.ok || data === undefined || typeof data === 'string') throw parseError(response.status, error ?? null);
  return data;
}

/** The same report as RFC 4180 CSV, every row of the period (D-51). */
export async function fetchSummaryCsv(query: SummaryQuery): Promise<Blob> {
  const { data, error, response } = await api.GET('/reports/summary', {
    params: { query: summaryParams(query) },
    headers: { accept: 'text/csv' },
    parseAs: 'blob',
  });
  if (!response.ok || data === undefined) throw parseError(response.status, error ?? null);
  return new Blob([data], { type: 'text/csv' });
}

export function useSummary(query: SummaryQuery, enabled: boolean) {
  return useQuery({
    queryKey: ['reports', 'summary', query],
    enabled,
    queryFn: () => fetchSummary(query),
  });
}

/** Hands a Blob to the browser as a download named `filename`. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
