import {
  context as otelContext,
  createContextKey,
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

/**
 * A message's unsampled parent (parent-based sampling): its work records no
 * span, so the parent is kept under a key of its own rather than as the active
 * span. pg, ioredis and outgoing http (`requireParentSpan`) then see no parent
 * and make no span at all, while `currentTraceparent` still hands the parent's
 * context on (replies, nested commands, outbox rows), so that downstream makes
 * the same decision.
 */
const UNSAMPLED_PARENT = createContextKey('worktrack unsampled parent');

interface UnsampledParent {
  spanContext: SpanContext;
  traceparent: string;
}

const unsampledParent = (): UnsampledParent | undefined => otelContext.active().getValue(UNSAMPLED_PARENT) as UnsampledParent | undefined;

/** The W3C `traceparent` of the active span (or of an unsampled parent), or undefined (tracing off, no span, or an invalid one). */
export function currentTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan();
  return (span ? formatTraceparent(span.spanContext()) : undefined) ?? unsampledParent()?.traceparent;
}

/**
 * Incoming HTTP requests the head sampler dropped (`startTracing`): their
 * trace's unsampled root, made before any instrumentation saw the request.
 */
const droppedRequests = new WeakMap<object, UnsampledParent>();

/** For `startTracing` only: `request` starts a trace that is not sampled, with these ids. */
export function markDroppedRequest(request: object, traceId: string, spanId: string): void {
  const spanContext: SpanContext = { traceId, spanId, traceFlags: TraceFlags.NONE };
  droppedRequests.set(request, { spanContext, traceparent: `00-${traceId}-${spanId}-00` });
}

/**
 * Calls `done` (the rest of an HTTP request's hooks and its handler) in the
 * request's trace when the head sampler dropped it: no span is made for it
 * (no HTTP, Fastify, ioredis or `withSpan` span), while its commands carry
 * a not-sampled `traceparent` (downstream makes no span either) and its log
 * lines its `trace_id`, as for a dropped trace's consumers (`withKafkaSpan`).
 * Otherwise only calls `done`. `request` is Node's incoming message.
 */
export function withRequestTrace(request: object, done: () => void): void {
  if (!enabled) return done();
  const parent = droppedRequests.get(request);
  if (parent === undefined) return done();
  otelContext.with(otelContext.active().setValue(UNSAMPLED_PARENT, parent), done);
}

const isSampled = (sc: SpanContext): boolean => (sc.traceFlags & (TraceFlags.SAMPLED as number)) !== 0;

/** A span context's header, made once per context object (a span hands out the same object on every call). */
const formatted = new WeakMap<SpanContext, string>();

export function formatTraceparent(sc: SpanContext): string | undefined {
  const known = formatted.get(sc);
  if (known !== undefined) return known;
  if (!trace.isSpanContextValid(sc)) return undefined;
  const value = `00-${sc.traceId}-${sc.spanId}-${isSampled(sc) ? '01' : '00'}`;
  formatted.set(sc, value);
  return value;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** A remote span context from a W3C `traceparent`, or undefined when it is absent or malformed. */
export function parseTraceparent(value: string | undefined | null): SpanContext | undefined {
  if (!value) return undefined;
  const match = TRACEPARENT.exec(value.trim());
  // Hex by the pattern; valid when neither id is all zeros (W3C).
  if (!match || match[1] === 'ff' || match[2] === ZERO_TRACE_ID || match[3] === ZERO_SPAN_ID) return undefined;
  const sc: SpanContext = { traceId: match[2], spanId: match[3], traceFlags: parseInt(match[4], 16) & 1, isRemote: true };
  // A version-00 header with only the sampled bit (or none) is already this context's own spelling.
  if (match[1] === '00' && (match[4] === '00' || match[4] === '01')) formatted.set(sc, match[0]);
  return sc;
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
  const active = trace.getActiveSpan()?.spanContext();
  const sc = active !== undefined && trace.isSpanContextValid(active) ? active : unsampledParent()?.spanContext;
  return sc && trace.isSpanContextValid(sc) ? sc.traceId : undefined;
}

export interface KafkaSpanOptions {
  /** `child`: the span continues the sender's trace (commands, replies); `link`: a new trace linked to it (events). */
  relation: 'child' | 'link';
  /** The `traceparent` header(s) of the message(s) handled. */
  traceparents: Array<string | undefined>;
  kind?: SpanKind;
  /** The span's attributes, asked for only when the span is recorded (never when tracing is off or the trace unsampled). */
  attributes?: () => Attributes;
}

/**
 * Runs `fn` inside a span named `name` started from Kafka headers; without
 * tracing it only calls `fn`. Errors are recorded on the span and rethrown.
 * The sampler sees no attributes (the configured ones decide by trace id
 * and parent alone); a recorded span gets them as it starts.
 */
export function withKafkaSpan<T>(name: string, options: KafkaSpanOptions, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  const parents = options.traceparents.map(parseTraceparent).filter((sc): sc is SpanContext => sc !== undefined);
  let parent: Context = ROOT_CONTEXT;
  let links: Link[] | undefined;
  if (options.relation === 'child' && parents.length > 0) {
    // An unsampled parent's child is not recorded either (parent-based sampling): no span is
    // made, and the parent travels on as it came (`UNSAMPLED_PARENT`).
    if (unsampledParentsDecide && !isSampled(parents[0])) {
      const traceparent = formatTraceparent(parents[0]) as string;
      return otelContext.with(ROOT_CONTEXT.setValue(UNSAMPLED_PARENT, { spanContext: parents[0], traceparent }), fn);
    }
    parent = trace.setSpanContext(ROOT_CONTEXT, parents[0]);
  } else if (parents.length > 0) {
    // A sampled origin makes the consumer's trace sampled too (LinkFollowingSampler).
    links = parents.map((sc) => ({ context: sc }));
  }
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.CONSUMER, links }, parent, (span) => {
    if (span.isRecording()) span.setAttributes({ 'messaging.system': 'kafka', ...options.attributes?.() });
    return settle(span, fn);
  });
}

/**
 * Runs `fn` in a span that is a child of the active one (an internal step
 * worth seeing), when tracing is on; `attributes` is asked for only when the
 * span is recorded.
 */
export function withSpan<T>(
  name: string,
  attributes: () => Attributes,
  fn: () => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!enabled) return fn();
  // Inside an unsampled trace a child would not be recorded either: the parent's context
  // (and its not-sampled flag) already travels on, so no span is made.
  const active = trace.getActiveSpan();
  if (active === undefined ? unsampledParent() !== undefined : !active.isRecording()) return fn();
  return tracer().startActiveSpan(name, { kind }, otelContext.active(), (span) => {
    if (span.isRecording()) span.setAttributes(attributes());
    return settle(span, fn);
  });
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
