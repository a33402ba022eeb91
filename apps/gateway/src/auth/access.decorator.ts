import { SetMetadata } from '@nestjs/common';

/**
 * D-9, declared on every /v1 route (a test checks that none is missing):
 * - `read`: any authenticated credential may call it.
 * - `report`: writes the caller's own sessions or activity; `full` and
 *   `report_only` credentials may call it (the handler only ever writes the
 *   principal's own data).
 * - `full`: anything else that writes; `report_only` gets 403 FORBIDDEN.
 * - `public`: no credential (signing in: D-38 … D-41); the route checks what it needs itself.
 */
export type AccessRule = 'read' | 'report' | 'full' | 'public';

export const ACCESS_RULE = 'worktrack:access-rule';

export const Access = (rule: AccessRule): MethodDecorator & ClassDecorator => SetMetadata(ACCESS_RULE, rule);

export const DURING_ENROLMENT = 'worktrack:during-enrolment';

/**
 * D-42: a route a browser session may use while its workspace requires
 * two-factor of the member and they have not enrolled (enrolment itself, the
 * profile, signing out); every other route answers 403 TWO_FACTOR_REQUIRED.
 */
export const AllowedDuringEnrolment = (): MethodDecorator & ClassDecorator => SetMetadata(DURING_ENROLMENT, true);
