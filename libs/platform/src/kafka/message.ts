import { randomUUID } from 'node:crypto';
import type { IHeaders, KafkaMessage } from 'kafkajs';
import { Header, isErrorCode, type ErrorBody, type MessageContract } from '@worktrack/contracts';
import { currentTraceparent, TRACEPARENT_HEADER } from '../tracing/tracing';

export type HeaderMap = Record<string, string>;

export function readHeaders(headers: IHeaders | undefined): HeaderMap {
  const out: HeaderMap = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined) out[k] = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  }
  return out;
}

/**
 * Headers every message carries: contract type and version, a message id, the
 * request id, and with tracing on a W3C `traceparent`: `opts.traceparent`
 * (an outbox row's, captured when it was written), else the active span's.
 */
export function contractHeaders(
  contract: Pick<MessageContract, 'type' | 'version'>,
  opts: { messageId?: string; requestId?: string | null; traceparent?: string | null },
): HeaderMap {
  const headers: HeaderMap = {
    [Header.type]: contract.type,
    [Header.version]: String(contract.version),
    [Header.messageId]: opts.messageId ?? randomUUID(),
  };
  if (opts.requestId) headers[Header.requestId] = opts.requestId;
  const traceparent = opts.traceparent === undefined ? currentTraceparent() : opts.traceparent;
  if (traceparent) headers[TRACEPARENT_HEADER] = traceparent;
  return headers;
}

/** What a handler gets besides the payload. */
export interface MessageMeta {
  topic: string;
  partition: number;
  offset: string;
  headers: HeaderMap;
  messageId: string;
  requestId?: string;
  type: string;
  version: number;
}

export function messageMeta(topic: string, partition: number, message: KafkaMessage): MessageMeta {
  const headers = readHeaders(message.headers);
  return {
    topic,
    partition,
    offset: message.offset,
    headers,
    messageId: headers[Header.messageId] ?? `${topic}:${partition}:${message.offset}`,
    requestId: headers[Header.requestId],
    type: headers[Header.type] ?? '',
    version: Number(headers[Header.version] ?? '0'),
  };
}

export function decodeJson(value: Buffer | null): unknown {
  if (!value || value.length === 0) throw new SyntaxError('empty message value');
  return JSON.parse(value.toString('utf8')) as unknown;
}

/** `value` when it is a D-2 error body (a code and a message), else undefined. */
export function asErrorBody(value: unknown): ErrorBody | undefined {
  const v = (typeof value === 'object' && value !== null ? value : {}) as { code?: unknown; message?: unknown; details?: unknown };
  if (!isErrorCode(v.code) || typeof v.message !== 'string') return undefined;
  return { code: v.code, message: v.message, ...(Array.isArray(v.details) ? { details: v.details as ErrorBody['details'] } : {}) };
}
