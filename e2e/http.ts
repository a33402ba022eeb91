/** Small HTTP helpers for the end-to-end tests (JSON in, status + JSON + headers out). */
export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T, headers: res.headers };
}

export interface ErrorBody {
  error: { code: string; message: string; details?: Array<{ path: string; issue: string }> };
}

/**
 * POSTs a body the server will refuse as too large. A server may answer 413 and
 * close the connection before the whole body is written (Fastify does, from
 * Content-Length): fetch then fails with EPIPE although the answer arrived.
 * This reads the answer whatever happens to the rest of the upload.
 */
export async function postOversize<T = ErrorBody>(
  base: string,
  path: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<Reply<T>> {
  // A reset can also discard the answer itself (the server closed with the upload unread): try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await postOversizeOnce<T>(base, path, body, headers);
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

async function postOversizeOnce<T>(base: string, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<Reply<T>> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
        resolve({ status: res.statusCode ?? 0, body: (text ? JSON.parse(text) : null) as T, headers: out });
      });
    });
    req.on('error', (err) => {
      if (!answered) setTimeout(() => (answered ? undefined : reject(err)), 2_000); // the answer may still be on its way
    });
    req.end(body);
  });
}
