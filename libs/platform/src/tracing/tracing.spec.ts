import { contractHeaders } from '../kafka/message';
import { context as otelContext, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  currentTraceId,
  currentTraceparent,
  formatTraceparent,
  markTracingEnabled,
  parseTraceparent,
  tracingEnabled,
  withKafkaSpan,
  withRequestTrace,
  withSpan,
} from './tracing';
import { headSample, HeadIdGenerator, samplerFromEnv, startTracing } from './start-tracing';
import type { IncomingMessage } from 'node:http';

const INSTRUMENTED = [
  '@opentelemetry/sdk-node',
  '@opentelemetry/instrumentation-http',
  '@opentelemetry/instrumentation-pg',
  '@fastify/otel',
];

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT unset (zero cost)', () => {
  it('registers nothing: no SDK module loaded, http not patched, no header, the work runs bare', async () => {
    expect(startTracing('spec', {})).toBeUndefined();
    expect(tracingEnabled()).toBe(false);
    const loaded = Object.keys(require.cache);
    for (const name of INSTRUMENTED) expect(loaded.some((path) => path.includes(`/node_modules/${name}/`))).toBe(false);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const http = require('node:http') as typeof import('node:http') & { createServer: { __wrapped?: boolean } };
    expect(http.createServer.__wrapped).toBeUndefined();
    expect(contractHeaders({ type: 't', version: 1 }, {})).not.toHaveProperty('traceparent');
    const attributes = jest.fn(() => ({}));
    await expect(withSpan('s', attributes, () => Promise.resolve(1))).resolves.toBe(1);
    expect(attributes).not.toHaveBeenCalled();
    await expect(withKafkaSpan('k', { relation: 'link', traceparents: [undefined] }, () => Promise.resolve(2))).resolves.toBe(2);
  });
});

describe('W3C traceparent', () => {
  const value = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('round-trips a sampled context and keeps the sampled flag', () => {
    const sc = parseTraceparent(value);
    expect(sc).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1, isRemote: true });
    expect(formatTraceparent(sc!)).toBe(value);
    expect(formatTraceparent({ ...sc!, traceFlags: 0 })).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00');
  });

  it.each([
    ['absent', undefined],
    ['garbage', 'not a traceparent'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-b7ad6b7169203331-01'],
    ['an all-zero span id', '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01'],
    ['the forbidden version ff', 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'],
  ])('ignores %s', (_, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe('a command whose parent is not sampled (parent-based sampling)', () => {
  afterEach(() => {
    markTracingEnabled(false);
    otelContext.disable();
  });

  it('makes no span, not even an active one for pg/ioredis/http to hang theirs on: the traceparent travels on as it came', async () => {
    otelContext.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    markTracingEnabled(true, true);
    const unsampled = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
    const attributes = jest.fn(() => ({}));
    const seen = await withKafkaSpan('process spec.command', { relation: 'child', traceparents: [unsampled], attributes }, async () => {
      await Promise.resolve();
      // A nested command's `send` makes no span either, and sends the same parent on.
      return withSpan('send spec.nested', attributes, () =>
        Promise.resolve({ traceparent: currentTraceparent(), traceId: currentTraceId(), active: trace.getActiveSpan() }),
      );
    });
    expect(seen).toEqual({ traceparent: unsampled, traceId: '0af7651916cd43dd8448eb211c80319c', active: undefined });
    expect(attributes).not.toHaveBeenCalled();
    expect(contractHeaders({ type: 't', version: 1 }, {})).not.toHaveProperty('traceparent');
  });
});

describe('the head sampling of an incoming HTTP request (ADR 0020)', () => {
  afterEach(() => {
    markTracingEnabled(false);
    otelContext.disable();
  });

  const request = (headers: Record<string, string> = {}): IncomingMessage =>
    ({ method: 'POST', url: '/v1/sessions', headers }) as IncomingMessage;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { RandomIdGenerator } = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');

  it('drops a new trace the sampler refuses: its handler runs in the unsampled root, commands and log lines carry it', async () => {
    otelContext.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    markTracingEnabled(true, true);
    const ids = new HeadIdGenerator(new RandomIdGenerator());
    const req = request();
    expect(headSample(req, samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }), ids)).toBe(
      false,
    );
    expect(ids.next).toBeUndefined();
    const attributes = jest.fn(() => ({}));
    const seen = await new Promise<{ traceparent?: string; traceId?: string; active: unknown }>((resolve) =>
      withRequestTrace(req, () => {
        void withSpan('send spec.command', attributes, () =>
          Promise.resolve({ traceparent: currentTraceparent(), traceId: currentTraceId(), active: trace.getActiveSpan() }),
        ).then(resolve);
      }),
    );
    expect(seen.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(seen.traceId).toBe(seen.traceparent?.split('-')[1]);
    expect(seen.active).toBeUndefined();
    expect(attributes).not.toHaveBeenCalled();
  });

  it("keeps a sampled new trace's id for the instrumentation's server span, and leaves a request with a traceparent to its parent", () => {
    const ids = new HeadIdGenerator(new RandomIdGenerator());
    const all = samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' });
    expect(headSample(request(), all, ids)).toBe(true);
    const chosen = ids.next;
    expect(chosen).toMatch(/^[0-9a-f]{32}$/);
    expect(ids.generateTraceId()).toBe(chosen);
    expect(ids.generateTraceId()).not.toBe(chosen);
    const none = samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    expect(headSample(request({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }), none, ids)).toBe(true);
    expect(ids.next).toBeUndefined();
  });

  it("decides by the trace id as the instrumentation's sampler will: about the configured share of new traces is kept", () => {
    const ids = new HeadIdGenerator(new RandomIdGenerator());
    const tenth = samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' });
    let kept = 0;
    for (let i = 0; i < 4_000; i++) {
      if (headSample(request(), tenth, ids)) {
        kept++;
        expect(tenth.shouldSample(otelContext.active(), ids.generateTraceId(), 'POST', 1, {}, []).decision).toBe(2);
      }
    }
    expect(kept).toBeGreaterThan(200);
    expect(kept).toBeLessThan(650);
  });
});
