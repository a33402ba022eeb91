import { useQuery } from '@tanstack/react-query';
import type { components } from '@worktrack/sdk';
import { api, unwrap } from '../../lib/api-client';
import { longDate } from '../../lib/time';

export type PlateAssignment = components['schemas']['PlateAssignmentBody'];
export type PlateDay = components['schemas']['PlateDayBody'];
export type Teammate = components['schemas']['ListedMemberBody'];

/** Pages of `GET /v1/members` read in a row: a workspace has at most a few hundred members. */
const MAX_PAGES = 20;

/**
 * The workspace's members, every page: owners and admins get everyone with
 * role, capacity, status and last use; plain members their active teammates'
 * names (enough to assign to them).
 */
export function useTeammates() {
  return useQuery({
    queryKey: ['members'],
    staleTime: 60_000,
    queryFn: async (): Promise<Teammate[]> => {
      const all: Teammate[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < MAX_PAGES; i++) {
        const result = await api.GET('/members', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } });
        if (!result.response.ok || !result.data) return unwrap(Promise.resolve(result));
        all.push(...result.data.data);
        if (!result.data.meta.cursor) break;
        cursor = result.data.meta.cursor;
      }
      return all;
    },
  });
}

/** Whether a listed member is active (plain members only ever see active teammates, without the field). */
export const isActive = (m: Teammate): boolean => m.active !== false;

/** D-33: where an assignment landed, in words. */
export function landingSentence(result: PlateAssignment, requested: string, who: string): string {
  if (!result.overflowed) {
    return `Added to ${who}'s plate for ${longDate(result.plate_date)} (${result.active_count} of ${result.capacity} taken).`;
  }
  return (
    `${longDate(requested)} was full for ${who}, so it went to the next working day with room: ` +
    `${longDate(result.plate_date)} (${result.active_count} of ${result.capacity} taken).`
  );
}
