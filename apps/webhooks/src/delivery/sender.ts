import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { WebhooksConfig } from '../webhooks.config';

/** What an attempt got: a status (and its Retry-After), or no answer (status null) with a reason naming no address. */
export interface SendOutcome {
  status: number | null;
  retryAfter?: string | string[];
  error?: string;
}

/** Bytes of an answer read at most (the rest is dropped: only the status counts). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs one signed message (D-55). The agents are request-filtering-agent's,
 * as the calendar feeds use (D-53): the address every connection actually
 * connects to must be public unicast unless FEED_ALLOW_PRIVATE_HOSTS, checked
 * inside the socket's own lookup, so a name rebinding to a private address
 * between attempts is refused at connect time. Sockets are kept alive per
 * host (each was checked when it connected). Redirects are not followed: a
 * 3xx is a failed attempt. The whole exchange has the timeout.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly agents: { http: RequestFilteringHttpAgent; https: RequestFilteringHttpsAgent };

  constructor(private readonly config: WebhooksConfig) {
    const filter = { allowPrivateIPAddress: config.FEED_ALLOW_PRIVATE_HOSTS, allowMetaIPAddress: config.FEED_ALLOW_PRIVATE_HOSTS };
    const pool = { keepAlive: true, maxSockets: config.WEBHOOK_ENDPOINT_CONCURRENCY * 4, timeout: config.WEBHOOK_TIMEOUT_MS };
    this.agents = {
      http: new RequestFilteringHttpAgent({ ...filter, ...pool }),
      https: new RequestFilteringHttpsAgent({ ...filter, ...pool }),
    };
  }

  onModuleDestroy(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  send(url: string, headers: Record<string, string>, body: string): Promise<SendOutcome> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve({ status: null, error: 'the endpoint URL is invalid' });
    }
    const secure = target.protocol === 'https:';
    if (!secure && !(this.config.FEED_ALLOW_PRIVATE_HOSTS && target.protocol === 'http:')) {
      return Promise.resolve({ status: null, error: 'the endpoint URL must use https' });
    }
    const timeoutMs = this.config.WEBHOOK_TIMEOUT_MS;
    return new Promise<SendOutcome>((resolve) => {
      let done = false;
      const finish = (outcome: SendOutcome): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const req = (secure ? httpsRequest : httpRequest)(
        target,
        {
          method: 'POST',
          agent: secure ? this.agents.https : this.agents.http,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'worktrack-webhooks',
          },
        },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) res.destroy();
          });
          const status = res.statusCode ?? 0;
          const answered = (): void => finish({ status, retryAfter: res.headers['retry-after'] });
          res.once('end', answered);
          res.once('close', answered);
          res.once('error', answered);
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        finish({ status: null, error: `no answer within ${timeoutMs} ms` });
      }, timeoutMs);
      req.once('error', (err) => finish({ status: null, error: describe(err) }));
      req.end(body);
    });
  }
}

/** Why a connection failed, in words that name no address (the filter's own message quotes the resolved IP). */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  if (/is not allowed\. Because/.test(message)) return "the endpoint's host is a private, loopback, link-local or metadata address";
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return "the endpoint's host could not be resolved";
  if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return `the endpoint could not be reached (${code})`;
  return 'the endpoint could not be reached';
}
