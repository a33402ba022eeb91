/**
 * The first import of every main (`import '@worktrack/platform/tracing'`):
 * starts tracing before http, fastify, pg and ioredis are loaded, when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set; does nothing otherwise.
 */
import { processServiceName, startTracing } from './start-tracing';

startTracing(processServiceName());
