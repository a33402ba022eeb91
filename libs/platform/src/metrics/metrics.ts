import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * How often prom-client's event-loop-delay monitor samples (its default is
 * every 10 ms, a hundred wake-ups a second per registry). The
 * percentiles stay meaningful; a stall shorter than this is seen less often.
 */
export const EVENT_LOOP_MONITORING_PRECISION_MS = 100;

export interface MetricsOptions {
  /**
   * prom-client's process metrics (CPU, memory, GC, event loop). Default true;
   * a process hosting several services collects them in one registry only
   * (they describe the process, and each collector has its own timers).
   */
  processMetrics?: boolean;
}

/**
 * One Prometheus registry per app (several apps may share a process in tests
 * and under WORKTRACK_SERVICES). Feature code adds its own metrics to `registry`.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram<'method' | 'route' | 'status'>({
    name: 'worktrack_http_request_duration_seconds',
    help: 'HTTP request duration by route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly kafkaMessages = new Counter<'topic' | 'type' | 'outcome'>({
    name: 'worktrack_kafka_messages_total',
    help: 'Kafka messages consumed, by outcome (handled, failed, retried, expired, dead_lettered).',
    labelNames: ['topic', 'type', 'outcome'],
    registers: [this.registry],
  });
  readonly kafkaHandleDuration = new Histogram<'topic' | 'type'>({
    name: 'worktrack_kafka_handle_duration_seconds',
    help: 'Time spent handling one Kafka message.',
    labelNames: ['topic', 'type'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [this.registry],
  });
  readonly rpcDuration = new Histogram<'command' | 'outcome'>({
    name: 'worktrack_rpc_duration_seconds',
    help: 'Gateway command round trip over Kafka, by outcome (ok, error, timeout).',
    labelNames: ['command', 'outcome'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly consumerLag = new Gauge<'group' | 'topic'>({
    name: 'worktrack_kafka_consumer_lag',
    help: 'Messages not yet committed by a consumer group, per topic (refreshed every 30 s).',
    labelNames: ['group', 'topic'],
    registers: [this.registry],
  });
  readonly ready = new Gauge({
    name: 'worktrack_ready',
    help: '1 while the app takes work, 0 while starting or draining.',
    registers: [this.registry],
  });

  constructor(app: string, options: MetricsOptions = {}) {
    this.registry.setDefaultLabels({ app });
    if (options.processMetrics ?? true) {
      // Standard names (`process_*`, `nodejs_*`), no prefix: dashboards and alerts written for any Node app apply.
      collectDefaultMetrics({
        register: this.registry,
        eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_PRECISION_MS,
      });
    }
  }

  /** A feature's counter on this registry: created once, the same one for every later caller (providers can be built twice). */
  counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return (
      (this.registry.getSingleMetric(name) as Counter<L> | undefined) ??
      new Counter<L>({ name, help, labelNames: [...labelNames], registers: [this.registry] })
    );
  }
}
