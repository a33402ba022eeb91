import { useQuery } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api-client';
import { parseError } from '../../lib/errors';

/*
 * The reports routes (D-50 … D-52), typed from the decision's shape. They go
 * through the app's fetch (bearer, one refresh on a 401, errors as ApiError)
 * like every other call; this file is the only place that knows their shape,
 * so it switches to the generated client in one place once the served
 * document describes them.
 */

export const GROUP_KEYS = ['member', 'member_kind', 'work_type', 'project', 'goal', 'day', 'week'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

/** The metrics of a group and of the totals (D-50). */
export interface SummaryMetrics {
  tracked_seconds: number;
  paused_seconds: number;
  session_count: number;
  linked_event_count: number;
  outside_session_event_count: number;
  /** A decimal string in USD, "0" when none. */
  usage_cost: string;
  input_tokens: number;
  output_tokens: number;
}

/** A group's keys: only the ones asked for in `group_by` are present; session keys are null for events and usage outside any session. */
export interface SummaryGroup {
  member_id?: string;
  member_kind?: 'human' | 'agent';
  work_type?: 'intentional' | 'reactive' | null;
  project_id?: string | null;
  goal_id?: string | null;
  /** YYYY-MM-DD in `tz`. */
  day?: string;
  /** The ISO week's Monday, YYYY-MM-DD. */
  week?: string;
}

export interface SummaryRow extends SummaryMetrics {
  group: SummaryGroup;
}

export interface Summary {
  data: SummaryRow[];
  meta: { as_of: string; tz: string; from: string; to: string; totals: SummaryMetrics };
}

export interface SummaryQuery {
  /** Inclusive calendar dates, at most 366 days apart. */
  from: string;
  to: string;
  /** IANA; the caller's time zone when absent. */
  tz?: string;
  /** Up to two keys. */
  group_by?: GroupKey[];
  member_id?: string;
  member_kind?: 'human' | 'agent';
  work_type?: 'intentional' | 'reactive';
  project_id?: string;
  goal_id?: string;
}

/** `/v1/reports/summary?…` for a query (absent filters left out; `group_by` comma-separated). */
export function summaryPath(query: SummaryQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query) as Array<[keyof SummaryQuery, SummaryQuery[keyof SummaryQuery]]>) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : value);
  }
  return `/v1/reports/summary?${params.toString()}`;
}

async function get(path: string, accept: 'application/json' | 'text/csv'): Promise<Response> {
  const response = await apiFetch(new Request(`${location.origin}${path}`, { method: 'GET', headers: { accept } }));
  if (!response.ok) throw parseError(response.status, await response.json().catch(() => null));
  return response;
}

/** `GET /v1/reports/summary` as JSON (D-50). */
export async function fetchSummary(query: SummaryQuery): Promise<Summary> {
  return (await (await get(summaryPath(query), 'application/json')).json()) as Summary;
}

/** The same report as RFC 4180 CSV, every row of the period (D-51). */
export async function fetchSummaryCsv(query: SummaryQuery): Promise<Blob> {
  const response = await get(summaryPath(query), 'text/csv');
  return new Blob([await response.arrayBuffer()], { type: 'text/csv' });
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
