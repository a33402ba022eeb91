/** The API version prefix (D-6 documents the routes under it). */
export const API_PREFIX = 'v1';

const API_ROOT = `/${API_PREFIX}`;
const HOOKS_ROOT = '/hooks/';
const OPERATOR_ROUTES = new Set(['/status', '/metrics']);

/**
 * The one answer to "is this the API?": a request path (without its query)
 * or a route's pattern at `/v1` or under `/v1/`. The auth guard, the
 * credential screen, the no-store header and the web app's history fallback
 * all ask it.
 */
export function isApiRoute(path: string): boolean {
  return path.startsWith(API_ROOT) && (path.length === API_ROOT.length || path.charCodeAt(API_ROOT.length) === 0x2f);
}

/** A provider webhook (D-36) under `/hooks/`: its signature covers the raw body, and it has its own body limit. */
export function isHookRoute(path: string): boolean {
  return path.startsWith(HOOKS_ROOT);
}

/** `/status` and `/metrics`: behind the operator token when one is configured. */
export function isOperatorRoute(path: string): boolean {
  return OPERATOR_ROUTES.has(path);
}
