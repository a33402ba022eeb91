import { SetMetadata } from '@nestjs/common';

/**
 * D-9, declared on every /v1 route (a test checks that none is missing):
 * - `read`: any authenticated credential may call it.
 * - `report`: writes the caller's own sessions or activity; `full` and
 *   `report_only` credentials may call it (the handler only ever writes the
 *   principal's own data).
 * - `full`: anything else that writes; `report_only` gets 403 FORBIDDEN.
 */
export type AccessRule = 'read' | 'report' | 'full';

export const ACCESS_RULE = 'worktrack:access-rule';

export const Access = (rule: AccessRule): MethodDecorator & ClassDecorator => SetMetadata(ACCESS_RULE, rule);
