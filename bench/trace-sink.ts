import { OtlpReceiver } from '@worktrack/testing';

/**
 * `--trace-ratio <r>`: the stack the bench starts exports its traces
 * (parent-based, `r` of new traces sampled) to an OTLP/HTTP receiver in the
 * bench's own process, which counts and drops them; its CPU is not the
 * stack's. Without the flag tracing stays off (OTEL_* unset for the stack).
 * Call before starting the stack: the apps inherit the bench's environment.
 */
export async function traceSinkFromArgs(): Promise<OtlpReceiver | undefined> {
  const at = process.argv.indexOf('--trace-ratio');
  for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) delete process.env[k];
  if (at < 0) {
    console.log('tracing: off');
    return undefined;
  }
  const ratio = process.argv[at + 1] ?? '0.1';
  const sink = (await new OtlpReceiver({ keep: false }).start()).unref();
  process.once('exit', () => console.log(`tracing: ${sink.received} spans received`));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = sink.endpoint;
  process.env.OTEL_TRACES_SAMPLER = 'parentbased_traceidratio';
  process.env.OTEL_TRACES_SAMPLER_ARG = ratio;
  console.log(`tracing: on, parentbased_traceidratio ${ratio}, exported to ${sink.endpoint}`);
  return sink;
}
