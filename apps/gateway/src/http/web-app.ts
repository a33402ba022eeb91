import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

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
const NOT_APP = /^\/(v1|hooks|mcp|docs|openapi\.yaml|healthz|readyz|metrics|status|\.well-known|assets)(\/|$)/;

/** Where `npm run build` puts the app (dist/web beside dist/apps), from the source or the build of this file. */
export function findWebRoot(configured: string): string | null {
  const candidates = configured ? [resolve(configured)] : [resolve(__dirname, '../../../../web'), resolve(process.cwd(), 'dist/web')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
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
 * API's 404 NOT_FOUND. Returns false when there is no build to serve (the API
 * runs alone).
 */
export function registerWebApp(app: NestFastifyApplication, root: string | null): boolean {
  if (root === null) return false;
  const page = readFileSync(join(root, 'index.html'));
  const fastify = app.getHttpAdapter().getInstance();
  const assets = join(root, 'assets');
  for (const name of existsSync(assets) ? readdirSync(assets) : []) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const body = readFileSync(join(assets, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    fastify.get(`/assets/${name}`, (request, reply) => {
      void reply.headers(SECURITY_HEADERS).header('cache-control', 'public, max-age=31536000, immutable').header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type(type).send(body);
    });
  }
  const sendPage = (reply: FastifyReply): FastifyReply =>
    reply.headers(SECURITY_HEADERS).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page);
  fastify.get('/', (_request, reply) => sendPage(reply));
  fastify.get('/*', (request: FastifyRequest, reply) => {
    const path = request.url.split('?')[0];
    const wantsPage = (request.headers.accept ?? '').includes('text/html');
    if (NOT_APP.test(path) || !wantsPage) return reply.callNotFound();
    return sendPage(reply);
  });
  return true;
}
