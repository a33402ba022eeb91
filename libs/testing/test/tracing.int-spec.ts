import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OtlpReceiver, repoRoot } from '../src';

const probe = (): string => join(repoRoot(), 'dist', 'libs', 'testing', 'test', 'tracing-probe.js');

interface ProbeOutput {
  enabled: boolean;
  traceparent: string | null;
  lines: string[];
}

async function runProbe(env: Record<string, string>): Promise<ProbeOutput> {
  if (!existsSync(probe())) throw new Error(`${probe()} is missing: run npm run build first`);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const { stdout } = await promisify(execFile)(process.execPath, [probe()], { env: { ...clean, ...env } });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ProbeOutput;
}

/**
 * Tracing as a main starts it (the `@worktrack/platform/tracing` preload),
 * exporting to a real OTLP/HTTP receiver: Kafka headers carry the active span,
 * a command's span is its sender's child, an event's span links to its writer,
 * and log lines carry the trace id. Without an endpoint nothing is exported.
 */
describe('tracing from the preload to an OTLP receiver', () => {
  const receiver = new OtlpReceiver();

  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('propagates commands as children, events as links, and writes trace_id on log lines', async () => {
    const out = await runProbe({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'worktrack-probe' });
    expect(out.enabled).toBe(true);
    expect(out.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = (out.traceparent ?? '').split('-')[1];
    expect(JSON.parse(out.lines[0])).toMatchObject({ msg: 'inside a span', trace_id: traceId });
    expect(JSON.parse(out.lines[1])).not.toHaveProperty('trace_id');

    const spans = await receiver.waitFor((all) => (all.filter((s) => s.name.startsWith('process spec.')).length === 2 ? all : undefined));
    const send = spans.find((s) => s.name === 'send spec.command');
    const processed = spans.find((s) => s.name === 'process spec.command');
    const linked = spans.find((s) => s.name === 'process spec.event');
    expect(send).toMatchObject({ service: 'worktrack-probe', traceId, kind: 4 });
    expect(processed).toMatchObject({ traceId, parentSpanId: send?.spanId, kind: 5 });
    expect(linked?.traceId).not.toBe(traceId);
    expect(linked?.parentSpanId).toBeUndefined();
    expect(linked?.links).toEqual([{ traceId, spanId: processed?.spanId }]);
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT registers nothing: no header, no trace_id, no export', async () => {
    const before = receiver.spans.length;
    const out = await runProbe({});
    expect(out).toMatchObject({ enabled: false, traceparent: null });
    expect(out.lines.every((l) => !('trace_id' in (JSON.parse(l) as object)))).toBe(true);
    expect(receiver.spans.length).toBe(before);
  });
});
