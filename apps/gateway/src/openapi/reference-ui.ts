import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

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

/**
 * The interactive reference (D-6): Swagger UI from the swagger-ui-dist
 * package, served by this process at `path` and reading the document at
 * `documentUrl`. Registered on Fastify directly (no static-file plugin: the
 * page needs three files, read once at start).
 */
export function mountReferenceUi(fastify: FastifyInstance, path: string, documentUrl: string): void {
  const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
  const files: Array<[url: string, type: string, body: string | Buffer]> = [
    [path, 'text/html; charset=utf-8', page(path)],
    [`${path}/init.js`, 'text/javascript; charset=utf-8', init(documentUrl)],
    ...Object.entries(ASSETS).map(([name, type]): [string, string, Buffer] => [`${path}/${name}`, type, readFileSync(join(dist, name))]),
  ];
  for (const [url, type, body] of files) {
    fastify.get(url, (_request, reply) =>
      reply
        .type(type)
        .header('content-security-policy', CONTENT_SECURITY_POLICY)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'public, max-age=3600')
        .send(body),
    );
  }
}
