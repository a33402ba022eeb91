import { useQuery } from '@tanstack/react-query';
import type { components } from '@worktrack/sdk';
import { request } from '../../lib/api-client';
import { longDate } from '../../lib/time';

export type PlateAssignment = components['schemas']['PlateAssignmentBody'];
export type PlateDay = components['schemas']['PlateDayBody'];
export type Teammate = components['schemas']['ManagedMemberBody'];

/** The workspace's members, where the gateway lists them (owners and admins); empty when it does not. */
export function useTeammates() {
  return useQuery({
    queryKey: ['members'],
    retry: false,
    staleTime: 60_000,
    queryFn: async (): Promise<Teammate[]> => {
      try {
        return (await request<{ data: Teammate[] }>('GET', '/members')).data;
      } catch {
        return [];
      }
    },
  });
}

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
