import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { currentTraceId } from '../tracing/tracing';
import { redact, redactString } from './redact';

/** What every log line of the current request or message carries (D-4). */
export interface LogContext {
  requestId?: string;
  messageId?: string;
  [key: string]: string | undefined;
}

export const logContext = new AsyncLocalStorage<LogContext>();

export const currentRequestId = (): string | undefined => logContext.getStore()?.requestId;

/** Runs `fn` with `ctx` added to every log line written inside it. */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return logContext.run({ ...logContext.getStore(), ...ctx }, fn);
}

export type AppLogger = Logger;

/**
 * JSON logs on stdout, one object a line, with the request id mixed in.
 * Every object and message is passed through `redact` first: no credential
 * (authorization, cookies, token-like query parameters, D-8 tokens, JWTs,
 * URL passwords, signatures) reaches a log line, whatever the call site logs.
 */
export function createLogger(app: string, level: string, instanceId: string, destination?: DestinationStream): AppLogger {
  const options: LoggerOptions = {
    level,
    base: { app, instance: instanceId },
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: 'msg',
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => redact(object) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a: unknown) => (typeof a === 'string' ? redactString(a) : a)) as Parameters<typeof method>);
      },
    },
    // A copy: pino merges the line's fields into what mixin returns. Unset (undefined) ids are not written;
    // `trace_id` only with tracing on and a span active.
    mixin: () => {
      const traceId = currentTraceId();
      return traceId === undefined ? { ...logContext.getStore() } : { ...logContext.getStore(), trace_id: traceId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

const errorFields = (value: unknown): Record<string, unknown> =>
  value instanceof Error ? { err: { type: value.name, message: value.message, stack: value.stack } } : {};

const QUIET_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

/** Nest's logger interface over pino, so framework logs are JSON too. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: AppLogger) {}

  log(message: unknown, ...params: unknown[]): void {
    // Nest's start-up inventory (modules, routes) is debug detail, not news.
    const context = params[params.length - 1];
    this.write(typeof context === 'string' && QUIET_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }
  error = (message: unknown, ...params: unknown[]): void => this.write('error', message, params);
  warn = (message: unknown, ...params: unknown[]): void => this.write('warn', message, params);
  debug = (message: unknown, ...params: unknown[]): void => this.write('debug', message, params);
  verbose = (message: unknown, ...params: unknown[]): void => this.write('trace', message, params);
  fatal = (message: unknown, ...params: unknown[]): void => this.write('fatal', message, params);

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, params: unknown[]): void {
    // Nest passes the context name last; an error stack (string) may come before it.
    const context = typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : undefined;
    const stack = params.length >= 2 && typeof params[0] === 'string' ? params[0] : undefined;
    const fields = { context, ...(stack ? { stack } : {}), ...errorFields(message) };
    const text = message instanceof Error ? message.message : typeof message === 'string' ? message : JSON.stringify(message);
    this.logger[level](fields, text);
  }
}
