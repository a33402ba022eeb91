/**
 * Run as a process of its own by tracing.int-spec.ts (the OpenTelemetry
 * exporter does not run inside jest's module sandbox): starts tracing the way
 * every main does, sends a command, handles it, writes an event, handles that,
 * logs inside and outside a span, and prints what it saw as one JSON line.
 */
import '@worktrack/platform/tracing';
import { Writable } from 'node:stream';
import {
  contractHeaders,
  createLogger,
  SpanKind,
  stopTracing,
  TRACEPARENT_HEADER,
  tracingEnabled,
  withKafkaSpan,
  withSpan,
} from '@worktrack/platform';

async function main(): Promise<void> {
  const lines: string[] = [];
  const logger = createLogger(
    'probe',
    'info',
    'i-1',
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  let command: Record<string, string> = {};
  await withSpan(
    'send spec.command',
    () => ({}),
    async () => {
      command = contractHeaders({ type: 'spec.command', version: 1 }, {});
      logger.info('inside a span');
      await withKafkaSpan('process spec.command', { relation: 'child', traceparents: [command[TRACEPARENT_HEADER]] }, async () => {
        // The service writes an event: its outbox row takes this span's context.
        const event = contractHeaders({ type: 'spec.event', version: 1 }, {});
        await withKafkaSpan('process spec.event', { relation: 'link', traceparents: [event[TRACEPARENT_HEADER]] }, () => Promise.resolve());
      });
    },
    SpanKind.PRODUCER,
  );
  logger.info('outside');
  const enabled = tracingEnabled();
  await stopTracing(); // flushes the batch processor
  process.stdout.write(`${JSON.stringify({ enabled, traceparent: command[TRACEPARENT_HEADER] ?? null, lines })}\n`);
}

void main();
