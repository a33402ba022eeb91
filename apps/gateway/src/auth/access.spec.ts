import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { HOOK_PATHS, UNVERSIONED_PATHS } from '../gateway.app';
import { GatewayFeaturesModule } from '../gateway.module';
import { ACCESS_RULE } from './access.decorator';

type Controller = new (...args: never[]) => object;

/** The controllers of a module and of every module it imports. */
function controllersOf(module: object, seen = new Set<object>()): Controller[] {
  if (seen.has(module)) return [];
  seen.add(module);
  const own = (Reflect.getMetadata('controllers', module) ?? []) as Controller[];
  const imports = ((Reflect.getMetadata('imports', module) ?? []) as object[]).filter((m) => typeof m === 'function');
  return [...own, ...imports.flatMap((m) => controllersOf(m, seen))];
}

/** Every route handler of every gateway controller, with its path and access rule. */
function routes(): Array<{ route: string; rule: unknown }> {
  const controllers = controllersOf(GatewayFeaturesModule);
  return controllers.flatMap((controller) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const proto = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(proto)
      .filter((name) => name !== 'constructor' && typeof proto[name] === 'function')
      .filter((name) => Reflect.getMetadata(PATH_METADATA, proto[name] as object) !== undefined)
      .map((name) => {
        const handler = proto[name] as object;
        const method = RequestMethod[Number(Reflect.getMetadata(METHOD_METADATA, handler))];
        const path = String(Reflect.getMetadata(PATH_METADATA, handler));
        const rule: unknown = Reflect.getMetadata(ACCESS_RULE, handler) ?? Reflect.getMetadata(ACCESS_RULE, controller);
        return { route: `${method} /${base}${path === '/' ? '' : `/${path}`}`.replace(/\/{2,}/g, '/'), rule };
      });
  });
}

/** The /v1 routes that take no credential: the sign-in routes (D-38 … D-41). */
const PUBLIC_ROUTES = [
  'POST /auth/login',
  'POST /auth/refresh',
  'POST /auth/logout',
  'POST /auth/accept-invite',
  'GET /auth/providers',
  'GET /auth/oidc/:provider/start',
  'GET /auth/oidc/:provider/callback',
];

describe('D-9: every /v1 route declares its access rule', () => {
  it('finds the routes', () => {
    expect(routes().length).toBeGreaterThanOrEqual(5);
  });

  it.each(routes().map((r) => [r.route, r.rule] as const))('%s declares read, report or full', (route, rule) => {
    const path = route.split(' /')[1];
    if (UNVERSIONED_PATHS.includes(path.split('/')[0]) || UNVERSIONED_PATHS.includes(path) || HOOK_PATHS.includes(path)) {
      expect(rule).toBeUndefined(); // outside /v1: public by construction (webhooks: the provider's signature is the credential, D-36)
    } else if (PUBLIC_ROUTES.includes(route)) {
      expect(rule).toBe('public'); // signing in (D-38 … D-40): no credential yet
    } else {
      expect(['read', 'report', 'full']).toContain(rule);
    }
  });
});
