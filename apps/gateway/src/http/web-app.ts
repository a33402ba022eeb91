import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { Controller, Get, Inject, Module, Req, Res, type DynamicModule } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isApiRoute } from '../edge/routes';

/** Media types of what the build emits. */
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * D-44: the app may load and call nothing but this origin. No inline script
 * or style (the build emits none), no plugins, no framing, and no referrer,
 * so an invite link's one-time secret (D-38) never leaves in a Referer.
 */
export const WEB_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': WEB_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * Paths that never fall back to the app's page: the API, the provider hooks,
 * MCP, the API reference and document, operator paths, well-known documents
 * and the built files themselves (a missing asset is a 404, not a page).
 */
const RESERVED = /^\/(hooks|mcp|docs|openapi\.yaml|healthz|readyz|metrics|status|\.well-known|assets)(\/|$)/;
const isReserved = (path: string): boolean => isApiRoute(path) || RESERVED.test(path);

/** Where `npm run build` puts the app (dist/web beside dist/apps), from the source or the build of this file. */
export function findWebRoot(configured: string): string | null {
  const candidates = configured ? [resolve(configured)] : [resolve(__dirname, '../../../../web'), resolve(process.cwd(), 'dist/web')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

const WEB_ROOT = Symbol('WEB_ROOT');

interface Asset {
  type: string;
  body: Buffer;
  etag: string;
}

/**
 * The first-party web app at `/` (D-44), outside /v1 and without a
 * credential. The build is read once at start (a page and a few hashed
 * files, as the API reference is: no static-file plugin, whose dependencies
 * are ES modules the test runner cannot load). The hashed files under
 * /assets/ are cached for a year (immutable: a new build has new names); the
 * page itself is never stored, so a deploy is picked up on the next load.
 * Any other GET outside the reserved paths that asks for HTML answers the
 * page (history fallback: the app routes on the client); the rest stays the
 * API's 404 NOT_FOUND.
 */
@ApiExcludeController()
@Controller()
export class WebAppController {
  private readonly page: Buffer;
  private readonly assets = new Map<string, Asset>();

  constructor(@Inject(WEB_ROOT) root: string) {
    this.page = readFileSync(join(root, 'index.html'));
    const dir = join(root, 'assets');
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const type = TYPES[extname(name)];
      if (!type) continue;
      const body = readFileSync(join(dir, name));
      this.assets.set(name, { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
    }
  }

  @Get()
  root(@Res() reply: FastifyReply): void {
    this.sendPage(reply);
  }

  @Get('assets/:name')
  asset(@Req() request: FastifyRequest<{ Params: { name: string } }>, @Res() reply: FastifyReply): void {
    const asset = this.assets.get(request.params.name);
    if (!asset) {
      reply.callNotFound();
      return;
    }
    void reply.headers(SECURITY_HEADERS).header('cache-control', 'public, max-age=31536000, immutable').header('etag', asset.etag);
    if (request.headers['if-none-match'] === asset.etag) void reply.code(304).send();
    else void reply.type(asset.type).send(asset.body);
  }

  /** The history fallback: `*` is escaped in the prefix's exclusions (WEB_APP_PATHS), where it would be a pattern. */
  @Get('*')
  fallback(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const path = request.url.split('?')[0];
    const wantsPage = (request.headers.accept ?? '').includes('text/html');
    if (isReserved(path) || !wantsPage) reply.callNotFound();
    else this.sendPage(reply);
  }

  private sendPage(reply: FastifyReply): void {
    void reply.headers(SECURITY_HEADERS).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(this.page);
  }
}

/** The web app's GET routes, as the /v1 prefix excludes them (a literal `*`, escaped). */
export const WEB_APP_PATHS = ['/', 'assets/:name', '\\*'];

/** The web app when there is a build to serve (`root`); nothing when there is none (the API runs alone). */
@Module({})
export class WebAppModule {
  static forRoot(root: string | null): DynamicModule {
    if (root === null) return { module: WebAppModule };
    return { module: WebAppModule, controllers: [WebAppController], providers: [{ provide: WEB_ROOT, useValue: root }] };
  }
}
