import type { IncomingMessage } from 'node:http';
import { context, ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Attributes, type Context, type Link } from '@opentelemetry/api';
import type { IdGenerator, Sampler, SamplingResult } from '@opentelemetry/sdk-trace';
import { markDroppedRequest, markTracingEnabled, tracingEnabled, TRACEPARENT_HEADER } from './tracing';

/** Paths whose requests never start a trace: probes and scrapes. */
const UNTRACED_PATHS = /^\/(healthz|readyz|livez|metrics)(\/|\?|$)/;

export interface StartedTracing {
  shutdown(): Promise<void>;
}

let started: StartedTracing | undefined;

/**
 * Starts the OpenTelemetry SDK when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, before the instrumented modules
 * (http, fastify, pg, ioredis) are loaded; returns undefined and registers
 * nothing otherwise. The sampler, exporter protocol and resource follow the
 * standard OTEL_* variables (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG,
 * OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES); without a sampler set it is
 * `parentbased_always_on`. `serviceName` applies when OTEL_SERVICE_NAME is unset.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): StartedTracing | undefined {
  if (started) return started;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  // The signal-specific variable is the full URL; the general one is a base the exporter appends /v1/traces to.
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!url || env.OTEL_SDK_DISABLED === 'true') return undefined;
  // Loaded here only: without an endpoint none of the SDK's modules is even read.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { FastifyOtelInstrumentation } = require('@fastify/otel') as typeof import('@fastify/otel');
  const { RandomIdGenerator } = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { isTracingSuppressed } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sampler = new LinkFollowingSampler(samplerFromEnv(env));
  const ids = new HeadIdGenerator(new RandomIdGenerator());
  // Traces only: metrics are Prometheus' (/metrics) and logs go to stdout, so the SDK's own
  // metric and log exporters stay off unless asked for.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? serviceName,
    traceExporter: new OTLPTraceExporter({ url }),
    sampler,
    idGenerator: ids,
    instrumentations: [
      new HttpInstrumentation({
        // A dropped request is left alone (`headSample`): no attributes, no span, no listeners.
        ignoreIncomingRequestHook: (request: IncomingMessage) =>
          UNTRACED_PATHS.test(request.url ?? '') || !headSample(request, sampler, ids),
        // Outgoing HTTP (webhook deliveries, connectors) only inside a trace.
        requireParentforOutgoingSpans: true,
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        instrumentHooks: false,
        // Per route at registration; per request for its request and handler spans, which a
        // request the HTTP instrumentation left alone (untraced or dropped) does not get.
        ignorePaths: (route: { url: string }) => UNTRACED_PATHS.test(route.url) || isTracingSuppressed(context.active()),
      }),
      // Only queries made for a traced request or message; the statement's text, never its values.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  memoiseRequire();
  const samplerName = env.OTEL_TRACES_SAMPLER || 'parentbased_always_on';
  markTracingEnabled(true, !['always_on', 'always_off', 'traceidratio'].includes(samplerName));
  started = {
    shutdown: async () => {
      markTracingEnabled(false);
      await sdk.shutdown();
    },
  };
  return started;
}

/**
 * The standard samplers by their OTEL_TRACES_SAMPLER names, with
 * OTEL_TRACES_SAMPLER_ARG as the ratio (default 1); unset or empty:
 * `parentbased_always_on`.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const arg = env.OTEL_TRACES_SAMPLER_ARG;
  const ratio = arg === undefined || arg.trim() === '' ? 1 : Number(arg);
  switch (env.OTEL_TRACES_SAMPLER || 'parentbased_always_on') {
    case 'always_on':
      return new sdk.AlwaysOnSampler();
    case 'always_off':
      return new sdk.AlwaysOffSampler();
    case 'traceidratio':
      return new sdk.TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) });
    default:
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
  }
}

/**
 * A new trace that links to a sampled span (an event's consumer, linked to
 * the span that wrote it) is sampled too, so that at 10 % the asynchronous
 * tail of a kept request is kept with it; every other decision is the
 * configured sampler's.
 */
export class LinkFollowingSampler implements Sampler {
  constructor(private readonly delegate: Sampler) {}

  shouldSample(context: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    // Links first: most decisions have none, and then the parent is not even looked up.
    if (
      links.length > 0 &&
      links.some((l) => (l.context.traceFlags & (TraceFlags.SAMPLED as number)) !== 0) &&
      trace.getSpanContext(context) === undefined
    ) {
      return { decision: 2 /* SamplingDecision.RECORD_AND_SAMPLED */ };
    }
    return this.delegate.shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `LinkFollowingSampler{${this.delegate.toString()}}`;
  }
}

/**
 * The trace ids of the SDK's spans, with room for one chosen ahead: the id
 * `headSample` decided on becomes the id of the HTTP server span the
 * instrumentation starts next, in the same synchronous call.
 */
export class HeadIdGenerator implements IdGenerator {
  /** The trace id of the next root span, taken once. */
  next: string | undefined;

  constructor(private readonly random: IdGenerator) {}

  generateTraceId(): string {
    const chosen = this.next;
    this.next = undefined;
    return chosen ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}

/**
 * The sampling decision of an incoming HTTP request that starts a new trace
 * (no `traceparent`), taken before any instrumentation sees it, by the
 * configured sampler on the trace id the request will have. Sampled: the id
 * goes to the instrumentation's server span (`HeadIdGenerator`), where the
 * same sampler decides the same. Dropped: the instrumentation leaves the
 * request alone (no span, attributes or listeners: at 10 % that is nine
 * requests in ten) and `withRequestTrace` gives its handler the unsampled
 * root, so its commands and log lines still carry the trace. A request
 * with a `traceparent` follows it (parent-based), as before.
 */
export function headSample(request: IncomingMessage, sampler: Sampler, ids: HeadIdGenerator): boolean {
  if (request.headers[TRACEPARENT_HEADER] !== undefined) return true;
  const traceId = ids.generateTraceId();
  const { decision } = sampler.shouldSample(ROOT_CONTEXT, traceId, request.method ?? 'GET', SpanKind.SERVER, {}, []);
  if ((decision as number) !== 0 /* SamplingDecision.NOT_RECORD */) {
    ids.next = traceId;
    return true;
  }
  markDroppedRequest(request, traceId, ids.generateSpanId());
  return false;
}

/**
 * The instrumentations' require hook (require-in-the-middle, installed by
 * `sdk.start()`) resolves the file name of every `require()` call to see
 * whether it is a module to patch, bypassing Node's own resolution cache.
 * kafkajs requires its protocol's request modules inside each produce and
 * fetch, so with tracing on every Kafka request paid a full resolution (a
 * few % of the CPU of a command in bench:rpc). In front of that hook, a
 * `require(id)` that already returned a fully loaded module from the same
 * calling file returns the same exports again, as the hook itself would.
 */
function memoiseRequire(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Module = require('node:module') as {
    prototype: { require: (this: { filename?: string }, id: string) => unknown };
    _cache: Record<string, { loaded: boolean; exports: unknown } | undefined>;
    _resolveFilename: (id: string, parent: unknown) => string;
  };
  const hooked = Module.prototype.require;
  // Per calling file, per id: no key string is built on the way to a hit.
  type Loaded = Map<string, { filename: string; exports: unknown }>;
  const seen = new Map<string, Loaded>();
  Module.prototype.require = function memoisedRequire(this: { filename?: string }, id: string): unknown {
    const from = this.filename === undefined ? undefined : seen.get(this.filename);
    const hit = from?.get(id);
    // Still in Node's cache (nobody deleted it from require.cache): the same module as before.
    if (hit !== undefined && Module._cache[hit.filename] !== undefined) return hit.exports;
    const exports = hooked.call(this, id);
    if (this.filename !== undefined && (id.startsWith('./') || id.startsWith('../'))) {
      const filename = Module._resolveFilename(id, this);
      if (Module._cache[filename]?.loaded === true) {
        let byId = from;
        if (byId === undefined) seen.set(this.filename, (byId = new Map() as Loaded));
        byId.set(id, { filename, exports });
      }
    }
    return exports;
  };
}

/** Flushes and stops the SDK, if it was started (the drain's last step). */
export async function stopTracing(): Promise<void> {
  if (!started || !tracingEnabled()) return;
  const s = started;
  started = undefined;
  await s.shutdown();
}

/** The service name of this process: OTEL_SERVICE_NAME, else `worktrack-<app>` from the main's path (dist/apps/<app>/…), else `worktrack`. */
export function processServiceName(argv1: string | undefined = process.argv[1], env: NodeJS.ProcessEnv = process.env): string {
  if (env.OTEL_SERVICE_NAME) return env.OTEL_SERVICE_NAME;
  const app = /[\\/]apps[\\/]([^\\/]+)[\\/]/.exec(argv1 ?? '')?.[1];
  if (app) return `worktrack-${app}`;
  if (/services-host/.test(argv1 ?? '')) return `worktrack-services`;
  return 'worktrack';
}
