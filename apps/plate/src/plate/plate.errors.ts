import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-9: assigning needs a full credential. */
export const assignNeedsFullCredential = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'Assigning to a plate needs a full credential.');

/** D-7: a member of another workspace and a missing one look the same. */
export const assigneeNotFound = (): DomainError =>
  new DomainError(ErrorCode.ASSIGNEE_NOT_FOUND, 'No such member in your workspace.', [{ path: 'assignee_id', issue: 'unknown member' }]);

export const notACalendarDate = (path: 'plate_date' | 'date'): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', [{ path, issue: 'not a calendar date' }]);

/** D-33: the assignee's today, in the assignee's time zone. */
export const plateDateInPast = (today: string, timezone: string): DomainError =>
  new DomainError(ErrorCode.PLATE_DATE_IN_PAST, `plate_date is before the assignee's today (${today} in ${timezone}).`, [
    { path: 'plate_date', issue: `before ${today}` },
  ]);

/** D-34: overflow looked this many days ahead and found no working day with room. */
export const plateFull = (days: number, capacityZero: boolean): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, `The assignee's plate has no room in the next ${days} days.`, [
    { path: 'assignee_id', issue: capacityZero ? 'plate capacity is 0' : 'no working day with room' },
  ]);

/** The member projection has not caught up with identity yet. */
export const profileNotProjectedYet = (): DomainError =>
  new DomainError(ErrorCode.UNAVAILABLE, 'Your profile has not reached the plate service yet; retry shortly.');

export const plateItemNotFound = (plateItemId: string): DomainError =>
  new DomainError(ErrorCode.NOT_FOUND, `No plate item ${plateItemId}.`);
