import {
  context as otelContext,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';

/**
 * Distributed tracing (OpenTelemetry). `startTracing` (the preload in
 * `./register`, the first import of every main) registers the SDK only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set; otherwise nothing is registered, no
 * module is patched, and every helper here returns at its first test of
 * `tracingEnabled()` (zero cost when off).
 *
 * Context crosses Kafka as a W3C `traceparent` header: a command carries its
 * caller's span and the service's span is its child (one trace from the HTTP
 * request to the reply); an event written to an outbox carries the span that
 * wrote it, and its consumers start a trace of their own with a *link* to it
 * (the asynchronous tail: the outbox, the correlation, the link applied).
 */

export const TRACEPARENT_HEADER = 'traceparent';
const TRACER_NAME = 'worktrack';

let enabled = false;

/** Whether the SDK was started in this process (OTEL_EXPORTER_OTLP_ENDPOINT set). */
export const tracingEnabled = (): boolean => enabled;

/** Whether a child of an unsampled parent may still be recorded (a sampler that is not parent-based). */
let unsampledParentsDecide = true;

/** For `startTracing` only. `parentBased`: the sampler follows the parent's decision (the `parentbased_*` samplers). */
export function markTracingEnabled(value: boolean, parentBased = true): void {
  enabled = value;
  unsampledParentsDecide = parentBased;
}

const tracer = () => trace.getTracer(TRACER_NAME);

/** The W3C `traceparent` of the active span, or undefined (tracing off, no span, or an invalid one). */
export function currentTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan();
  return span ? formatTraceparent(span.spanContext()) : undefined;
}

const isSampled = (sc: SpanContext): boolean => (sc.traceFlags & (TraceFlags.SAMPLED as number)) !== 0;

export function formatTraceparent(sc: SpanContext): string | undefined {
  if (!trace.isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-${isSampled(sc) ? '01' : '00'}`;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A remote span context from a W3C `traceparent`, or undefined when it is absent or malformed. */
export function parseTraceparent(value: string | undefined | null): SpanContext | undefined {
  if (!value) return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match || match[1] === 'ff') return undefined;
  const sc: SpanContext = { traceId: match[2], spanId: match[3], traceFlags: parseInt(match[4], 16) & 1, isRemote: true };
  return trace.isSpanContextValid(sc) ? sc : undefined;
}

/** `headers` with the active span's `traceparent` added (the same object), when tracing is on. */
export function injectTraceparent<H extends Record<string, string>>(headers: H): H {
  if (!enabled) return headers;
  const value = currentTraceparent();
  if (value) (headers as Record<string, string>)[TRACEPARENT_HEADER] = value;
  return headers;
}

/** The active span's trace id for log lines, when tracing is on and a span is active. */
export function currentTraceId(): string | undefined {
  if (!enabled) return undefined;
  const sc = trace.getActiveSpan()?.spanContext();
  return sc && trace.isSpanContextValid(sc) ? sc.traceId : undefined;
}

export interface KafkaSpanOptions {
  /** `child`: the span continues the sender's trace (commands, replies); `link`: a new trace linked to it (events). */
  relation: 'child' | 'link';
  /** The `traceparent` header(s) of the message(s) handled. */
  traceparents: Array<string | undefined>;
  kind?: SpanKind;
  attributes?: Attributes;
}

/**
 * Runs `fn` inside a span named `name` started from Kafka headers; without
 * tracing it only calls `fn`. Errors are recorded on the span and rethrown.
 */
export function withKafkaSpan<T>(name: string, options: KafkaSpanOptions, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  const parents = options.traceparents.map(parseTraceparent).filter((sc): sc is SpanContext => sc !== undefined);
  let parent: Context = ROOT_CONTEXT;
  let links: Link[] | undefined;
  if (options.relation === 'child' && parents.length > 0) {
    parent = trace.setSpanContext(ROOT_CONTEXT, parents[0]);
    // An unsampled parent's child is not recorded either (parent-based sampling): no span is
    // made, the parent's context is only made active so its traceparent travels on as it came.
    if (unsampledParentsDecide && !isSampled(parents[0])) return otelContext.with(parent, fn);
  } else if (parents.length > 0) {
    // A sampled origin makes the consumer's trace sampled too (LinkFollowingSampler).
    links = parents.map((sc) => ({ context: sc }));
  }
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.CONSUMER, attributes: { 'messaging.system': 'kafka', ...options.attributes }, links },
    parent,
    (span) => settle(span, fn),
  );
}

/** Runs `fn` in a span that is a child of the active one (an internal step worth seeing), when tracing is on. */
export function withSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  if (!enabled) return fn();
  // Inside an unsampled trace a child would not be recorded either: the parent's context
  // (and its not-sampled flag) already travels on, so no span is made.
  const active = trace.getActiveSpan();
  if (active !== undefined && !active.isRecording()) return fn();
  return tracer().startActiveSpan(name, { kind, attributes }, otelContext.active(), (span) => settle(span, fn));
}

async function settle<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (span.isRecording()) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    }
    throw err;
  } finally {
    span.end();
  }
}

export { SpanKind };
