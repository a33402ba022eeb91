import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The swagger-ui-dist files the page loads, with their media types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/**
 * The browser may load nothing from another host: scripts and styles are
 * ours, Swagger UI's icons are inline SVG data, and "Try it out" calls this
 * origin.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const page = (path: string): string => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>worktrack API reference</title>
  <link rel="stylesheet" href="${path}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${path}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${path}/swagger-ui-bundle.js"></script>
  <script src="${path}/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise ask a public validator about the document for its badge.
const init = (documentUrl: string): string =>
  `window.ui = SwaggerUIBundle(${JSON.stringify({ url: documentUrl, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null })});\n`;

/** The reference page's path (D-6), outside the /v1 prefix and public. */
export const DOCS_PATH = '/docs';
/** The document the page reads, served by @nestjs/swagger (openapi.ts). */
export const OPENAPI_PATH = '/openapi.yaml';

interface ReferenceFile {
  type: string;
  body: string | Buffer;
}

/**
 * The interactive reference (D-6): Swagger UI from the swagger-ui-dist
 * package, served by this process at `/docs` and reading the document at
 * `/openapi.yaml`. No static-file plugin: the page needs three files, read
 * once at start.
 */
@ApiExcludeController()
@Controller(DOCS_PATH.slice(1))
export class ReferenceUiController {
  private readonly files = new Map<string, ReferenceFile>();

  constructor() {
    const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
    this.files.set('', { type: 'text/html; charset=utf-8', body: page(DOCS_PATH) });
    this.files.set('init.js', { type: 'text/javascript; charset=utf-8', body: init(OPENAPI_PATH) });
    for (const [name, type] of Object.entries(ASSETS)) this.files.set(name, { type, body: readFileSync(join(dist, name)) });
  }

  @Get()
  page(@Res() reply: FastifyReply): void {
    this.send(reply, '');
  }

  @Get(':file')
  file(@Req() request: FastifyRequest<{ Params: { file: string } }>, @Res() reply: FastifyReply): void {
    this.send(reply, request.params.file);
  }

  private send(reply: FastifyReply, name: string): void {
    const file = this.files.get(name);
    if (!file) {
      reply.callNotFound();
      return;
    }
    void reply
      .type(file.type)
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'public, max-age=3600')
      .send(file.body);
  }
}
