import type { FastifyReply } from 'fastify';

/** Nothing loads from the page: no script, style or frame. */
const PAGE_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/**
 * D-41: a single sign-on that did not work ends on a page a person reads,
 * saying why, with the way back to the sign-in page (the browser arrived by
 * a redirect, so a JSON error would be a dead end).
 */
export function sendSignInRefusal(reply: FastifyReply, status: number, message: string): FastifyReply {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in did not work · worktrack</title></head>
<body>
<main>
<h1>Sign-in did not work</h1>
<p role="alert">${escapeHtml(message)}</p>
<p><a href="/sign-in">Back to sign-in</a></p>
</main>
</body>
</html>
`;
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .send(html);
}
