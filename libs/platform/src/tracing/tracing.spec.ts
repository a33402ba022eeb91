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
  withSpan,
} from './tracing';
import { startTracing } from './start-tracing';

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
