import {
  canonicalTimeZone,
  ErrorCode,
  MAX_REPORT_DAYS,
  MAX_REPORT_GROUP_BYS,
  REPORT_GROUP_BYS,
  type ErrorDetail,
  type GetReportV1,
  type ReportGroupBy,
  type ReportKind,
} from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import type { ReportQueryDto } from './reports.dto';

const dayNumber = (day: string): number => {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const at = Date.UTC(y, m - 1, d);
  const back = new Date(at);
  return back.getUTCDate() === d && back.getUTCMonth() === m - 1 ? at / 86_400_000 : Number.NaN;
};

/**
 * The report's parameters checked (D-50): real dates, `from` not after `to`,
 * at most 366 days, a zone the runtime knows (canonical name), up to two
 * distinct known group-bys. Anything else is a 400 with details.
 */
export function reportQuery(report: ReportKind, query: ReportQueryDto, defaultTz: string): Omit<GetReportV1, 'actor'> {
  const details: ErrorDetail[] = [];
  const from = dayNumber(query.from);
  const to = dayNumber(query.to);
  if (Number.isNaN(from)) details.push({ path: 'from', issue: 'must be a real calendar date' });
  if (Number.isNaN(to)) details.push({ path: 'to', issue: 'must be a real calendar date' });
  if (!Number.isNaN(from) && !Number.isNaN(to)) {
    if (from > to) details.push({ path: 'from', issue: 'must not be after to' });
    else if (to - from + 1 > MAX_REPORT_DAYS) details.push({ path: 'to', issue: `the period spans at most ${MAX_REPORT_DAYS} days` });
  }
  const tz = canonicalTimeZone(query.tz ?? defaultTz);
  if (!tz) details.push({ path: 'tz', issue: 'must be an IANA time zone name' });
  const groupBy: ReportGroupBy[] = [];
  if (query.group_by !== undefined) {
    if (report !== 'summary') details.push({ path: 'group_by', issue: 'only the summary is grouped' });
    const names = query.group_by.split(',').map((g) => g.trim());
    for (const name of names) {
      if (!(REPORT_GROUP_BYS as readonly string[]).includes(name)) {
        details.push({ path: 'group_by', issue: `unknown group "${name.slice(0, 32)}": one of ${REPORT_GROUP_BYS.join(', ')}` });
      } else if (groupBy.includes(name as ReportGroupBy)) {
        details.push({ path: 'group_by', issue: `"${name}" is named twice` });
      } else groupBy.push(name as ReportGroupBy);
    }
    if (names.length > MAX_REPORT_GROUP_BYS) details.push({ path: 'group_by', issue: `at most ${MAX_REPORT_GROUP_BYS} groups` });
  }
  if (report !== 'sessions' && (query.cursor !== undefined || query.limit !== undefined)) {
    details.push({ path: query.cursor !== undefined ? 'cursor' : 'limit', issue: 'only the sessions report is paged' });
  }
  if (details.length > 0) throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', details);
  return {
    report,
    from: query.from,
    to: query.to,
    tz: tz!,
    groupBy,
    filters: {
      ...(query.member_id ? { memberId: query.member_id.toLowerCase() } : {}),
      ...(query.member_kind ? { memberKind: query.member_kind } : {}),
      ...(query.work_type ? { workType: query.work_type } : {}),
      ...(query.project_id ? { projectId: query.project_id.toLowerCase() } : {}),
      ...(query.goal_id ? { goalId: query.goal_id.toLowerCase() } : {}),
    },
    ...(query.cursor ? { cursor: query.cursor } : {}),
    ...(query.limit ? { limit: query.limit } : {}),
  };
}
