import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-12: only a human owner or admin with a full credential registers agents. */
export const registerNeedsFullCredential = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'Registering agents needs a full credential.');

export const agentsCannotRegisterAgents = (): DomainError => new DomainError(ErrorCode.FORBIDDEN, 'Agents cannot register agents.');

export const onlyOwnersAndAdminsRegister = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'Only owners and admins can register agents.');
