import type { ErrorBody } from '../error-codes';

/**
 * The body of a message on `gateway.replies`: exactly one of `data` (the
 * command's result, shaped by its contract's result class) or `error` (a D-2
 * code with a message, never a stack trace).
 */
export type ReplyBody = { ok: true; data: unknown } | { ok: false; error: ErrorBody };
