import { randomUUID } from 'node:crypto';
import {
  memberWithToken,
  OtlpReceiver,
  startAppProcess,
  type AppProcess,
  type MemberWithToken,
  type ReceivedSpan,
} from '@worktrack/testing';
import { call } from './http';

const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

const pathOf = (s: ReceivedSpan): unknown => s.attributes['url.path'] ?? s.attributes['http.target'];
const isPostgres = (s: ReceivedSpan): boolean => (s.attributes['db.system.name'] ?? s.attributes['db.system']) === 'postgresql';

/** The chain of parents of `span` inside its trace, up to its root. */
function ancestors(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain: ReceivedSpan[] = [];
  for (
    let at = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    at;
    at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined
  ) {
    chain.push(at);
  }
  return chain;
}

/**
 * Traces exported over OTLP/HTTP to a real receiver started here: one
 * connected trace for a command from the HTTP request through Kafka to the
 * service and back, and linked traces for the asynchronous tail (an event's
 * outbox row, its correlation, the link applied).
 */
describe('distributed tracing end to end', () => {
  const receiver = new OtlpReceiver();
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let member: MemberWithToken;

  beforeAll(async () => {
    await receiver.start();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' };
    apps.push(...(await Promise.all(['identity', 'ingestion', 'sessions', 'correlation'].map((a) => startAppProcess(a, env, 120_000)))));
    gateway = await startAppProcess('gateway', { ...env, REQUEST_TIMEOUT_MS: '15000' }, 120_000);
    apps.push(gateway);
    member = memberWithToken({ workspace: `trace-${randomUUID().slice(0, 8)}`, email: `t-${randomUUID().slice(0, 8)}@example.com` });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
    await receiver.stop();
  });

  it('POST /v1/sessions is one trace: gateway request, command produced, sessions consumes and replies', async () => {
    // The member reaches sessions' projection asynchronously: a first start may find it not there yet.
    const start = () =>
      call<{ data: { session_id: string } }>(gateway.url, 'POST', '/v1/sessions', {
        token: member.token,
        body: { intent_text: 'trace this', source: 'timer' },
      });
    let started = await start();
    for (let i = 0; i < 10 && started.status !== 201; i++) {
      await new Promise((r) => setTimeout(r, 1_000));
      started = await start();
    }
    expect(started.status).toBe(201);

    const { request, send, handled } = await receiver.waitFor((spans) => {
      const request = spans.find(
        (s) =>
          s.service === 'worktrack-gateway' && s.kind === SERVER && pathOf(s) === '/v1/sessions' && s.attributes['http.method'] !== 'GET',
      );
      if (!request) return undefined;
      const trace = spans.filter((s) => s.traceId === request.traceId);
      // The request also verifies its token with identity (another command): the sessions command is the one to follow.
      const send = trace.find((s) => s.service === 'worktrack-gateway' && s.kind === PRODUCER && s.name === 'send sessions.session.start');
      const handled = trace.find((s) => s.service === 'worktrack-sessions' && s.kind === CONSUMER && s.parentSpanId === send?.spanId);
      return send && handled ? { request, send, handled } : undefined;
    });
    const trace = receiver.trace(request.traceId);
    // Connected: the service's span hangs under the command's producer span, which hangs under the HTTP request.
    expect(ancestors(trace, handled).map((s) => s.spanId)).toEqual(expect.arrayContaining([send.spanId, request.spanId]));
    expect(handled.attributes['messaging.system']).toBe('kafka');
    // The service's own work (its Postgres statements) is in the same trace, under its span.
    const queries = trace.filter((s) => s.service === 'worktrack-sessions' && isPostgres(s));
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(ancestors(trace, q).map((s) => s.spanId)).toContain(handled.spanId);
    // The SessionChanged row the start's statement wrote carries its traceparent: its consumers link to the request.
    const changed = await receiver.waitFor((spans) =>
      spans.find(
        (s) => s.kind === CONSUMER && s.name === 'process sessions.session.changed' && s.links.some((l) => l.traceId === request.traceId),
      ),
    );
    expect(changed.traceId).not.toBe(request.traceId);
  });

  it("an event's correlation is a trace of its own, linked to the request that stored the event", async () => {
    const stored = await call<{ data: { event_ids: string[] } }>(gateway.url, 'POST', '/v1/activity/events', {
      token: member.token,
      body: { events: [{ event_type: 'traced', occurred_at: new Date().toISOString() }] },
    });
    expect(stored.status).toBeLessThan(300);

    const { request, correlated } = await receiver.waitFor((spans) => {
      const request = spans.find((s) => s.service === 'worktrack-gateway' && s.kind === SERVER && pathOf(s) === '/v1/activity/events');
      if (!request) return undefined;
      const correlated = spans.find(
        (s) => s.service === 'worktrack-correlation' && s.kind === CONSUMER && s.links.some((l) => l.traceId === request.traceId),
      );
      return correlated ? { request, correlated } : undefined;
    });
    // Linked, not joined: the asynchronous tail has its own trace.
    expect(correlated.traceId).not.toBe(request.traceId);
    // The link points at the ingestion span that wrote the outbox row, inside the request's trace.
    const writer = await receiver.waitFor((spans) =>
      spans.find((s) => s.traceId === request.traceId && s.spanId === correlated.links[0].spanId),
    );
    expect(writer.service).toBe('worktrack-ingestion');
    // The link made: correlation's statements belong to its trace.
    const made = await receiver.waitFor((spans) =>
      spans.some((s) => s.traceId === correlated.traceId && s.service === 'worktrack-correlation' && isPostgres(s)) ? true : undefined,
    );
    expect(made).toBe(true);
    // The link applied: ingestion's consumer of the link row correlation wrote is a trace of its own, linked to correlation's span.
    const applied = await receiver.waitFor((spans) =>
      spans.find(
        (s) =>
          s.service === 'worktrack-ingestion' &&
          s.kind === CONSUMER &&
          s.name === 'process correlation.events.linked' &&
          s.links.some((l) => l.traceId === correlated.traceId && l.spanId === correlated.spanId),
      ),
    );
    expect(applied.traceId).not.toBe(correlated.traceId);
  });
  it('a request the head sampler drops makes no span in the gateway or downstream; its command and log line carry its trace', async () => {
    // A second gateway sampling no new trace (ADR 0020: the decision is taken before any instrumentation sees the request).
    const dropping = await startAppProcess(
      'gateway',
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_BSP_SCHEDULE_DELAY: '200',
        OTEL_SERVICE_NAME: 'worktrack-gateway-dropping',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
        REQUEST_TIMEOUT_MS: '15000',
        LOG_LEVEL: 'debug',
      },
      120_000,
    );
    try {
      const isList = (s: ReceivedSpan): boolean =>
        s.service === 'worktrack-sessions' && s.kind === CONSUMER && s.name.includes('sessions.session.list');
      const listsBefore = receiver.spans.filter(isList).length;
      expect((await call(dropping.url, 'GET', '/v1/sessions', { token: member.token })).status).toBe(200);
      // The same request through the sampling gateway: once its spans are in, a span of the dropped one would be too.
      expect((await call(gateway.url, 'GET', '/v1/sessions', { token: member.token })).status).toBe(200);
      await receiver.waitFor((spans) => (spans.filter(isList).length > listsBefore ? spans : undefined));
      await new Promise((r) => setTimeout(r, 1_000));
      // Without a not-sampled traceparent on its command, sessions (parent-based, always on) would have recorded a root span.
      expect(receiver.spans.filter(isList)).toHaveLength(listsBefore + 1);
      expect(receiver.spans.filter((s) => s.service === 'worktrack-gateway-dropping')).toEqual([]);
      const line = dropping
        .output()
        .split('\n')
        .find((l) => l.includes('"msg":"request"') && l.includes('/v1/sessions'));
      expect(JSON.parse(line ?? '{}')).toHaveProperty('trace_id', expect.stringMatching(/^[0-9a-f]{32}$/));
    } finally {
      await dropping.stop();
    }
  }, 180_000);
});
