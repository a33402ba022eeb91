/**
 * deploy/observability: the Grafana dashboards against a JSON schema (ajv),
 * the alert rules through Prometheus' own checker (`promtool check rules`,
 * Debian's `prometheus` package; `npm test` installs it when missing), every
 * metric they name served by the apps, the ServiceMonitor against the
 * Services and the Secret it reads, and compose's Prometheus against the
 * apps' ports.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parse, parseAllDocuments, parseDocument } from 'yaml';

const ROOT = join(__dirname, '..');
const OBS = join(ROOT, 'deploy', 'observability');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

interface Panel {
  id: number;
  title: string;
  targets: Array<{ expr: string }>;
}
interface Dashboard {
  uid: string;
  panels: Panel[];
}
interface RuleGroups {
  groups: Array<{ name: string; rules: Array<{ alert: string; expr: string; labels?: Record<string, string> }> }>;
}

const dashboardFiles = readdirSync(join(OBS, 'dashboards')).filter((f) => f.endsWith('.json'));
const dashboards = dashboardFiles.map((f) => [f, JSON.parse(readFileSync(join(OBS, 'dashboards', f), 'utf8')) as Dashboard] as const);
const ruleResource = parse(read('deploy/observability/k8s/prometheusrule.yaml')) as { kind: string; spec: RuleGroups };

/** Every .ts source of the apps and libs (what defines the metrics), tests excluded. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'test' ? [] : sources(path);
    return e.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(e.name) ? [readFileSync(path, 'utf8')] : [];
  });
}

/** The metric names a PromQL expression uses (identifiers followed by a selector, a range or an operator, not functions or labels). */
function metricNames(expr: string): string[] {
  const withoutLabels = expr.replace(/\{[^}]*\}/g, '{}').replace(/\b(by|without)\s*\([^)]*\)/g, '');
  return [...withoutLabels.matchAll(/\b((?:worktrack|process|nodejs|kafka)_[a-z0-9_]+)\b/g)].map((m) => m[1]);
}

describe('Grafana dashboards', () => {
  const validate = new Ajv({ allErrors: true }).compile(JSON.parse(read('deploy/observability/dashboard.schema.json')) as object);

  it('finds the dashboards', () => {
    expect(dashboardFiles.sort()).toEqual(['worktrack-http.json', 'worktrack-pipeline.json']);
  });

  it.each(dashboards)('%s matches the dashboard schema, with unique panel ids and a unique uid', (_, dashboard) => {
    const ok = validate(dashboard);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('covers the panels an operator asks for: rate, errors and latency per route, command latency, lag, outbox age, link delay, refusals', () => {
    const exprs = dashboards.flatMap(([, d]) => d.panels.flatMap((p) => p.targets.map((t) => t.expr))).join('\n');
    for (const needed of [
      'worktrack_http_request_duration_seconds_count',
      'status=~"5.."',
      'worktrack_http_request_duration_seconds_bucket',
      'worktrack_rpc_duration_seconds_bucket',
      'worktrack_kafka_handle_duration_seconds_bucket',
      'worktrack_kafka_consumer_lag',
      'worktrack_outbox_oldest_age_seconds',
      'worktrack_link_delay_seconds_bucket',
      'worktrack_rate_limited_total',
    ]) {
      expect(exprs).toContain(needed);
    }
  });
});

describe('alert rules', () => {
  it('are the same groups in the PrometheusRule and in the plain rule file compose loads', () => {
    expect(ruleResource.kind).toBe('PrometheusRule');
    expect(parse(read('deploy/observability/prometheus/rules/worktrack.rules.yml'))).toEqual(ruleResource.spec);
  });

  it('alert on 5xx ratio, p99 over the objective, growing lag, outbox age and under-replicated partitions', () => {
    const alerts = ruleResource.spec.groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect(alerts).toEqual(
      expect.arrayContaining([
        'WorktrackHigh5xxRatio',
        'WorktrackP99OverSlo',
        'WorktrackConsumerLagGrowing',
        'WorktrackOutboxStale',
        'KafkaUnderReplicatedPartitions',
      ]),
    );
    for (const rule of ruleResource.spec.groups.flatMap((g) => g.rules)) expect(['page', 'ticket']).toContain(rule.labels?.severity);
  });

  it('pass `promtool check rules`', () => {
    const which = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
    if (which.error) throw new Error('promtool is missing: apt-get install -y prometheus (npm test installs it)');
    const dir = mkdtempSync(join(tmpdir(), 'rules-'));
    try {
      const file = join(dir, 'worktrack.rules.yml');
      writeFileSync(file, JSON.stringify(ruleResource.spec));
      const run = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
      expect(`${run.stdout}${run.stderr}`).toContain('SUCCESS');
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the metrics dashboards and alerts name', () => {
  const code = [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))].join('\n');
  const promClient = readdirSync(join(ROOT, 'node_modules/prom-client/lib/metrics'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(join(ROOT, 'node_modules/prom-client/lib/metrics', f), 'utf8'))
    .join('\n');
  const used = new Set([
    ...dashboards.flatMap(([, d]) => d.panels.flatMap((p) => p.targets.flatMap((t) => metricNames(t.expr)))),
    ...ruleResource.spec.groups.flatMap((g) => g.rules.flatMap((r) => metricNames(r.expr))),
  ]);

  it.each([...used].filter((n) => !n.startsWith('kafka_')))('%s is served by an app', (name) => {
    const base = name.replace(/_(bucket|count|sum)$/, '');
    if (/^(process|nodejs)_/.test(base)) {
      // prom-client's default metrics, under their standard names (no prefix).
      expect(promClient).toContain(`'${base}'`);
      expect(code).not.toMatch(/collectDefaultMetrics\(\{[^}]*prefix/);
    } else {
      expect(code).toContain(`'${base}'`);
    }
  });
});

describe('ServiceMonitor', () => {
  const monitor = parse(read('deploy/observability/k8s/servicemonitor.yaml')) as {
    kind: string;
    spec: {
      selector: { matchLabels: Record<string, string> };
      endpoints: Array<{ port: string; path: string; authorization: { type: string; credentials: { name: string; key: string } } }>;
    };
  };

  it("scrapes every app Service's http port at /metrics with the operator token from the Secret", () => {
    expect(monitor.kind).toBe('ServiceMonitor');
    const [endpoint] = monitor.spec.endpoints;
    expect(endpoint).toMatchObject({ port: 'http', path: '/metrics', authorization: { type: 'Bearer' } });
    const secret = parse(read('k8s/secret.example.yaml')) as { metadata: { name: string }; stringData: Record<string, string> };
    expect(endpoint.authorization.credentials).toEqual({ name: secret.metadata.name, key: 'OPERATOR_TOKEN' });
    expect(Object.keys(secret.stringData)).toContain('OPERATOR_TOKEN');
    const files = readdirSync(join(ROOT, 'k8s/apps'));
    expect(files.length).toBeGreaterThanOrEqual(8);
    for (const file of files) {
      const service = parseAllDocuments(read(`k8s/apps/${file}`))
        .map((d) => d.toJS() as { kind: string; metadata: { labels: Record<string, string> }; spec: { ports: Array<{ name: string }> } })
        .find((d) => d.kind === 'Service');
      expect(service).toBeDefined();
      expect(service?.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
      expect(service?.spec.ports.map((p) => p.name)).toContain('http');
    }
  });
});

describe("compose's observability profile", () => {
  const compose = parseDocument(read('docker-compose.yml'), { merge: true }).toJS({ maxAliasCount: -1 }) as {
    services: Record<string, { profiles?: string[]; environment?: Record<string, string>; command?: string[] | string }>;
  };
  const prometheus = parse(read('deploy/observability/prometheus/prometheus.yml')) as {
    rule_files: string[];
    scrape_configs: Array<{ job_name: string; authorization?: { credentials_file: string }; static_configs: Array<{ targets: string[] }> }>;
  };

  it('runs Prometheus, Grafana, the collector and Jaeger only with the profile', () => {
    for (const name of ['prometheus', 'grafana', 'otel-collector', 'jaeger'])
      expect(compose.services[name]?.profiles).toEqual(['observability']);
  });

  it('scrapes every app at its HTTP_PORT with the operator token', () => {
    const job = prometheus.scrape_configs.find((j) => j.job_name === 'worktrack');
    expect(job?.authorization?.credentials_file).toBe('/tmp/operator-token');
    const targets = new Set(job?.static_configs.flatMap((c) => c.targets));
    const apps = Object.entries(compose.services).filter(
      ([, s]) => s.environment?.HTTP_PORT && !String(s.command ?? '').includes('migrate') && !s.profiles,
    );
    expect(apps.length).toBeGreaterThanOrEqual(8);
    for (const [name, s] of apps) expect(targets).toContain(`${name}:${s.environment?.HTTP_PORT}`);
  });
});
