import { isApiRoute, isHookRoute, isOperatorRoute } from './routes';

describe('the API route predicate', () => {
  it.each(['/v1', '/v1/', '/v1/me', '/v1/sessions/:session_id', '/v1/webhook-endpoints/:id/rotate'])('%s is an API route', (path) => {
    expect(isApiRoute(path)).toBe(true);
  });

  it.each([
    '',
    '/',
    '/v10',
    '/v1me',
    '/v2/me',
    '/V1/me',
    '/hooks/github/:connector_id',
    '/status',
    '/metrics',
    '/mcp',
    '/docs',
    '/assets/v1.js',
    '/x/v1/me',
  ])('%s is not', (path) => {
    expect(isApiRoute(path)).toBe(false);
  });

  it('tells provider hooks and operator routes apart from the API', () => {
    expect(isHookRoute('/hooks/slack/:connector_id')).toBe(true);
    expect(isHookRoute('/v1/hooks/x')).toBe(false);
    expect(isOperatorRoute('/status')).toBe(true);
    expect(isOperatorRoute('/metrics')).toBe(true);
    expect(isOperatorRoute('/status/x')).toBe(false);
    expect(isOperatorRoute('/healthz')).toBe(false);
  });
});
