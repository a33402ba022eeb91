import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status: number;
  body?: unknown;
  type?: string;
}
export type Handler = (request: {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  headers: IncomingMessage['headers'];
}) => Answer;

export interface Recorded {
  method: string;
  path: string;
  body: unknown;
  authorization: string | undefined;
}

/**
 * A real HTTP server on loopback answering the app's requests from a table
 * ("POST /v1/auth/login" → handler); the component tests point the page's
 * origin at it, so the app's own fetch, client and error handling run as in a browser.
 */
export async function apiServer(
  routes: Record<string, Handler>,
): Promise<{ origin: string; requests: Recorded[]; close: () => Promise<void>; server: Server }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const raw = Buffer.concat(chunks).toString('utf8');
      const body: unknown = raw ? JSON.parse(raw) : undefined;
      const method = req.method ?? 'GET';
      requests.push({ method, path: url.pathname + url.search, body, authorization: req.headers.authorization });
      const handler = routes[`${method} ${url.pathname}`];
      const answer: Answer = handler
        ? handler({ method, path: url.pathname, query: url.searchParams, body, headers: req.headers })
        : { status: 404, body: { error: { code: 'NOT_FOUND', message: 'no route' } } };
      if (answer.status === 204) {
        res.writeHead(204).end();
        return;
      }
      const type = answer.type ?? 'application/json';
      res.writeHead(answer.status, { 'content-type': type });
      res.end(type === 'application/json' ? JSON.stringify(answer.body ?? null) : String(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, requests, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export const json = (body: unknown, status = 200): Answer => ({ status, body });
export const fail = (status: number, code: string, message = code): Answer => ({ status, body: { error: { code, message } } });
