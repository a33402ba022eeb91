import type { MemberV1, WorkingHours } from '@worktrack/contracts';

/** D-13: the member on the wire. */
export interface MemberBody {
  member_id: string;
  workspace_id: string;
  kind: 'human' | 'agent';
  role: 'owner' | 'admin' | 'member';
  display_name: string;
  email: string | null;
  timezone: string;
  working_hours: WorkingHours;
  plate_capacity: number;
}

export const presentMember = (m: MemberV1): MemberBody => ({
  member_id: m.memberId,
  workspace_id: m.workspaceId,
  kind: m.kind,
  role: m.role,
  display_name: m.displayName,
  email: m.email ?? null,
  timezone: m.timezone,
  working_hours: m.workingHours,
  plate_capacity: m.plateCapacity,
});
