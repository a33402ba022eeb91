/**
 * Structural checks of the deployment files, which cannot be run here: every
 * YAML under k8s/ and docker-compose.yml parses; each app has what it needs to
 * run and be scaled safely; the KafkaTopics equal the topic registry; the
 * kustomization lists every resource file; the Dockerfile's runtime stage is
 * what the manifests assume (non-root, tini, the gateway by default).
 */
import 'reflect-metadata'; // the contracts' message classes use decorators
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { allTopics } from '@worktrack/contracts';
import { parseCreateMemberArgs } from '../apps/identity/src/admin/create-member.command';

const ROOT = join(__dirname, '..');

/** The deployable apps and their HTTP_PORT. Must match the folders in apps/. */
const APP_PORTS = {
  gateway: 3000,
  identity: 3101,
  ingestion: 3102,
  correlation: 3103,
  sessions: 3104,
  plate: 3105,
  connectors: 3106,
  reporting: 3108,
  webhooks: 3109,
} as const satisfies Record<string, number>;
type AppName = keyof typeof APP_PORTS;
const APPS = Object.keys(APP_PORTS) as AppName[];
/** Apps with a database and a Kafka command topic: everything but the gateway. */
const SERVICES = APPS.filter((app) => app !== 'gateway');

/** The image name the manifests use; kustomization.yaml `images` sets the real one. */
const IMAGE = 'worktrack';
const NAMESPACE = 'worktrack';
const CONFIG_MAP = 'worktrack-config';
const SECRET = 'worktrack-secrets';

/** YAML files under k8s/ that are deliberately not applied, and why. */
const NOT_APPLIED: Readonly<Record<string, string>> = {
  'secret.example.yaml': 'an example; the real Secret is created out of band',
  'kafka/create-topics-job.yaml': 'the alternative to kafka/topics.yaml for clusters without Strimzi',
  'jobs/bootstrap-member.yaml': 'run once by hand for the first member; on every apply it would mint tokens',
};

// ----------------------------------------------------------------- helpers

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Walks a parsed document; undefined when any step is missing. */
function at(value: unknown, ...path: readonly (string | number)[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (typeof key === 'number') {
      current = Array.isArray(current) ? current[key] : undefined;
    } else {
      current = isRecord(current) ? current[key] : undefined;
    }
  }
  return current;
}

function fail(what: string, expected: string, value: unknown): never {
  const got = value === undefined ? 'undefined' : JSON.stringify(value);
  throw new Error(`${what}: expected ${expected}, got ${got}`);
}

function str(value: unknown, what: string): string {
  return typeof value === 'string' && value !== '' ? value : fail(what, 'a non-empty string', value);
}

function num(value: unknown, what: string): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fail(what, 'a number', value);
}

function list(value: unknown, what: string): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : fail(what, 'a list', value);
}

function record(value: unknown, what: string): Json {
  return isRecord(value) ? value : fail(what, 'a mapping', value);
}

/** Resource quantities and string/number scalars as written in YAML. */
function scalar(value: unknown, what: string): string {
  return typeof value === 'number' ? String(value) : str(value, what);
}

interface ParsedFile {
  /** Path from the repository root, with forward slashes. */
  readonly path: string;
  readonly errors: readonly string[];
  readonly docs: readonly unknown[];
}

function parseYamlFile(path: string): ParsedFile {
  const errors: string[] = [];
  const docs: unknown[] = [];
  // Merge keys (`<<`) as docker compose reads them.
  for (const doc of parseAllDocuments(readFileSync(path, 'utf8'), { merge: true })) {
    const problems = [...doc.errors, ...doc.warnings].map((problem) => problem.message);
    errors.push(...problems);
    if (problems.length === 0 && doc.contents !== null) docs.push(doc.toJS({ maxAliasCount: -1 })); // docker-compose.yml merges its anchors into every service
  }
  return { path: relative(ROOT, path).split(sep).join('/'), errors, docs };
}

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFilesUnder(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

interface Resource {
  readonly file: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: unknown;
  readonly body: Json;
}

function toResource(file: string, doc: unknown): Resource {
  const where = `${file}: ${JSON.stringify(at(doc, 'kind'))} ${JSON.stringify(at(doc, 'metadata', 'name'))}`;
  const body = record(doc, file);
  return {
    file,
    apiVersion: str(body.apiVersion, `${where} apiVersion`),
    kind: str(body.kind, `${where} kind`),
    name: str(at(body, 'metadata', 'name'), `${where} metadata.name`),
    namespace: at(body, 'metadata', 'namespace'),
    body,
  };
}

// ------------------------------------------------------------ the files

const k8sDir = join(ROOT, 'k8s');
const k8sFiles = yamlFilesUnder(k8sDir)
  .map(parseYamlFile)
  .sort((a, b) => a.path.localeCompare(b.path));
const kustomizationFile = 'k8s/kustomization.yaml';
const resourceFiles = k8sFiles.filter((file) => file.path !== kustomizationFile);
const compose = parseYamlFile(join(ROOT, 'docker-compose.yml'));

/** Path relative to k8s/, as kustomization.yaml lists it. */
const k8sRelative = (path: string): string => path.replace(/^k8s\//, '');

const kustomization = (): Json => {
  const file = k8sFiles.find((f) => f.path === kustomizationFile);
  return record(file?.docs[0], kustomizationFile);
};
const kustomizationResources = (): string[] =>
  list(kustomization().resources, 'kustomization resources').map((r) => str(r, 'kustomization resource'));

const resourcesIn = (files: readonly ParsedFile[]): Resource[] =>
  files.flatMap((file) => file.docs.map((doc) => toResource(file.path, doc)));
/** Everything `kubectl apply -k k8s` applies. */
const applied = (): Resource[] => {
  const listed = new Set(kustomizationResources());
  return resourcesIn(resourceFiles.filter((file) => listed.has(k8sRelative(file.path))));
};
/** Every manifest, applied or not. */
const allResources = (): Resource[] => resourcesIn(resourceFiles);

function findOne(resources: readonly Resource[], kind: string, name: string): Resource {
  const found = resources.filter((r) => r.kind === kind && r.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, found ${String(found.length)}`);
  return found[0];
}

/** The single container of a pod template (Deployment or Job). */
function container(resource: Resource): Json {
  const containers = list(at(resource.body, 'spec', 'template', 'spec', 'containers'), `${resource.name} containers`);
  expect(containers).toHaveLength(1);
  return record(containers[0], `${resource.name} container`);
}

function envFromNames(c: Json, ref: 'configMapRef' | 'secretRef'): unknown[] {
  return list(c.envFrom, 'envFrom').map((source) => at(source, ref, 'name'));
}

function envValue(c: Json, name: string): unknown {
  const entry = list(c.env ?? [], 'env').find((e) => at(e, 'name') === name);
  return at(entry, 'value');
}

const configData = (): Json => record(at(findOne(applied(), 'ConfigMap', CONFIG_MAP).body, 'data'), 'ConfigMap data');

// ---------------------------------------------------------------- tests

describe('YAML files', () => {
  it('finds the manifests', () => {
    expect(k8sFiles.length).toBeGreaterThan(APPS.length);
  });

  it.each([...k8sFiles, compose].map((file) => [file.path, file] as const))('%s parses cleanly', (_path, file) => {
    expect(file.errors).toEqual([]);
    expect(file.docs.length).toBeGreaterThan(0);
  });

  it('every k8s resource has apiVersion, kind and metadata.name', () => {
    for (const file of resourceFiles) {
      for (const doc of file.docs) {
        expect(() => toResource(file.path, doc)).not.toThrow();
      }
    }
  });

  it('kustomization.yaml is a Kustomization', () => {
    expect(kustomization()).toMatchObject({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
    });
  });
});

describe('the apps', () => {
  it('are exactly the folders in apps/, but for the MCP server (a client: stdio for agent runtimes, /mcp served by the gateway) and the web app (static files the gateway serves)', () => {
    const folders = readdirSync(join(ROOT, 'apps'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'mcp' && entry.name !== 'web')
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual([...APPS].sort());
  });
});

describe('kustomization.yaml', () => {
  it('lists every resource file except the documented exceptions, and nothing missing', () => {
    const files = resourceFiles.map((file) => k8sRelative(file.path));
    const expected = files.filter((path) => !(path in NOT_APPLIED)).sort();
    expect([...kustomizationResources()].sort()).toEqual(expected);
    for (const exception of Object.keys(NOT_APPLIED)) expect(files).toContain(exception);
  });

  it('sets the one image every workload uses', () => {
    const images = list(kustomization().images, 'kustomization images');
    const image = record(
      images.find((i) => at(i, 'name') === IMAGE),
      `kustomization images entry ${IMAGE}`,
    );
    str(image.newName, 'images newName');
    scalar(image.newTag, 'images newTag');
    const workloads = allResources().filter((r) => r.kind === 'Deployment' || r.kind === 'Job');
    expect(workloads.length).toBeGreaterThan(0);
    for (const workload of workloads) expect(container(workload).image).toBe(IMAGE);
  });

  it('applies no Secret (secret values are never committed)', () => {
    expect(applied().filter((r) => r.kind === 'Secret')).toEqual([]);
  });
});

describe('config', () => {
  it('ConfigMap values are strings and hold no secrets', () => {
    const data = configData();
    for (const [key, value] of Object.entries(data)) expect([key, typeof value]).toEqual([key, 'string']);
    expect(Object.keys(data)).not.toContain('DATABASE_URL');
    expect(Object.keys(data)).not.toContain('JWT_SECRET');
    expect(data.NODE_ENV).toBe('production');
    expect(data.MIGRATE_ON_START).toBe('false');
  });

  it('workloads in the app namespace', () => {
    const inKafkaNamespace = new Set(['KafkaTopic', 'Kafka', 'KafkaNodePool']);
    for (const r of applied().filter((r) => r.kind !== 'Namespace' && !inKafkaNamespace.has(r.kind))) {
      expect([r.kind, r.name, r.namespace]).toEqual([r.kind, r.name, NAMESPACE]);
    }
  });
});

describe.each(APPS)('app %s', (app) => {
  const port = APP_PORTS[app];
  const deployment = (): Resource => findOne(applied(), 'Deployment', app);
  const podSpec = (): Json => record(at(deployment().body, 'spec', 'template', 'spec'), `${app} pod spec`);
  const matchLabels = (): Json => record(at(deployment().body, 'spec', 'selector', 'matchLabels'), `${app} selector`);

  /** A probe or Service port, by number or by container port name. */
  const resolvePort = (value: unknown): number => {
    if (typeof value === 'number') return value;
    const named = list(container(deployment()).ports, `${app} ports`).find((p) => at(p, 'name') === value);
    return num(at(named, 'containerPort'), `${app} port ${JSON.stringify(value)}`);
  };

  it('Deployment runs the app from the one image', () => {
    const c = container(deployment());
    expect(c.image).toBe(IMAGE);
    // args, not command: the image's ENTRYPOINT (tini) must stay PID 1.
    expect(c.command).toBeUndefined();
    expect(c.args).toEqual(['node', `dist/apps/${app}/src/main.js`]);
    expect(envValue(c, 'HTTP_PORT')).toBe(String(port));
    expect(resolvePort('http')).toBe(port);
  });

  it('pod labels match the selector, and the HPA owns the replica count', () => {
    const labels = record(at(deployment().body, 'spec', 'template', 'metadata', 'labels'), `${app} pod labels`);
    expect(labels).toMatchObject(matchLabels());
    expect(at(deployment().body, 'spec', 'replicas')).toBeUndefined();
  });

  it.each([
    ['readinessProbe', '/readyz'],
    ['livenessProbe', '/healthz'],
  ])('%s is GET %s on HTTP_PORT', (probe, path) => {
    const httpGet = record(at(container(deployment()), probe, 'httpGet'), `${app} ${probe}`);
    expect(httpGet.path).toBe(path);
    expect(resolvePort(httpGet.port)).toBe(port);
  });

  it('has resource requests and limits', () => {
    const c = container(deployment());
    for (const bound of ['requests', 'limits']) {
      for (const resource of ['cpu', 'memory']) {
        scalar(at(c, 'resources', bound, resource), `${app} resources.${bound}.${resource}`);
      }
    }
  });

  it('drains within the grace period: preStop sleep + SHUTDOWN_TIMEOUT_MS < terminationGracePeriodSeconds', () => {
    const preStop = list(at(container(deployment()), 'lifecycle', 'preStop', 'exec', 'command'), `${app} preStop`);
    expect(preStop[0]).toBe('sleep');
    const sleepMs = Number(preStop[1]) * 1000;
    const shutdownMs = Number(configData().SHUTDOWN_TIMEOUT_MS);
    expect(sleepMs).toBeGreaterThan(0);
    expect(shutdownMs).toBeGreaterThan(0);
    const graceMs = num(podSpec().terminationGracePeriodSeconds, `${app} terminationGracePeriodSeconds`) * 1000;
    expect(graceMs).toBeGreaterThan(sleepMs + shutdownMs);
  });

  it('runs as non-root with the ConfigMap and the Secret', () => {
    expect(at(podSpec(), 'securityContext', 'runAsNonRoot')).toBe(true);
    const c = container(deployment());
    expect(at(c, 'securityContext', 'allowPrivilegeEscalation')).toBe(false);
    expect(envFromNames(c, 'configMapRef')).toContain(CONFIG_MAP);
    expect(envFromNames(c, 'secretRef')).toContain(SECRET);
  });

  it('has a Service on HTTP_PORT selecting its pods', () => {
    const service = findOne(applied(), 'Service', app);
    expect(at(service.body, 'spec', 'selector')).toEqual(matchLabels());
    const ports = list(at(service.body, 'spec', 'ports'), `${app} Service ports`);
    expect(ports.map((p) => resolvePort(at(p, 'targetPort')))).toContain(port);
  });

  it('has a PodDisruptionBudget selecting its pods', () => {
    const pdb = findOne(applied(), 'PodDisruptionBudget', app);
    expect(at(pdb.body, 'spec', 'selector', 'matchLabels')).toEqual(matchLabels());
    const budget = at(pdb.body, 'spec', 'maxUnavailable') ?? at(pdb.body, 'spec', 'minAvailable');
    expect(budget).toBeDefined();
  });

  it('has an HPA (autoscaling/v2) on its Deployment', () => {
    const hpa = findOne(applied(), 'HorizontalPodAutoscaler', app);
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(at(hpa.body, 'spec', 'scaleTargetRef')).toMatchObject({ kind: 'Deployment', name: app });
    const min = num(at(hpa.body, 'spec', 'minReplicas'), `${app} minReplicas`);
    const max = num(at(hpa.body, 'spec', 'maxReplicas'), `${app} maxReplicas`);
    expect(min).toBeGreaterThanOrEqual(2); // the PDB can then always allow one eviction
    expect(max).toBeGreaterThanOrEqual(min);
  });
});

describe.each(SERVICES)('service %s', (service) => {
  it('scales no further than the partitions of its command topic', () => {
    const topic = allTopics().find((t) => t.name === `${service}.commands`);
    const partitions = num(topic?.partitions, `${service}.commands partitions`);
    const hpa = findOne(applied(), 'HorizontalPodAutoscaler', service);
    expect(num(at(hpa.body, 'spec', 'maxReplicas'), 'maxReplicas')).toBeLessThanOrEqual(partitions);
  });

  it('has a migration Job', () => {
    const job = findOne(applied(), 'Job', `migrate-${service}`);
    const c = container(job);
    expect(c.command).toBeUndefined();
    expect(c.args).toEqual(['node', `dist/apps/${service}/src/main.js`, 'migrate']);
    expect(envFromNames(c, 'secretRef')).toContain(SECRET);
    expect(['Never', 'OnFailure']).toContain(at(job.body, 'spec', 'template', 'spec', 'restartPolicy'));
  });
});

describe('migration Jobs', () => {
  it('exist for the services only (the gateway has no database)', () => {
    const migrations = applied()
      .filter((r) => r.kind === 'Job' && r.name.startsWith('migrate-'))
      .map((r) => r.name)
      .sort();
    expect(migrations).toEqual(SERVICES.map((s) => `migrate-${s}`).sort());
  });
});

describe('Kafka topics', () => {
  const kafkaTopics = (): Resource[] => applied().filter((r) => r.kind === 'KafkaTopic');

  it('KafkaTopics equal the registry: names, partitions, retention.ms, max.message.bytes', () => {
    const manifests = kafkaTopics()
      .map((t) => ({
        name: str(at(t.body, 'spec', 'topicName') ?? t.name, `${t.name} topicName`),
        partitions: at(t.body, 'spec', 'partitions'),
        retentionMs: Number(at(t.body, 'spec', 'config', 'retention.ms')),
        maxMessageBytes: at(t.body, 'spec', 'config', 'max.message.bytes') ?? null,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const registry = allTopics()
      .map((t) => ({ name: t.name, partitions: t.partitions, retentionMs: t.retentionMs, maxMessageBytes: t.maxMessageBytes ?? null }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(manifests).toEqual(registry);
  });

  it('KafkaTopics have the registry cleanup.policy (compacted topics keep every key forever)', () => {
    const manifests = kafkaTopics()
      .map((t) => ({
        name: str(at(t.body, 'spec', 'topicName') ?? t.name, `${t.name} topicName`),
        cleanupPolicy: at(t.body, 'spec', 'config', 'cleanup.policy') ?? 'delete',
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const registry = allTopics()
      .map((t) => ({ name: t.name, cleanupPolicy: t.cleanupPolicy ?? 'delete' }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(manifests).toEqual(registry);
  });

  it('are Strimzi v1 resources (the only API of Strimzi 1.x) of one cluster', () => {
    const topics = kafkaTopics();
    expect(topics.length).toBeGreaterThan(0);
    for (const t of topics) expect(t.apiVersion).toBe('kafka.strimzi.io/v1');
    const clusters = new Set(topics.map((t) => str(at(t.body, 'metadata', 'labels', 'strimzi.io/cluster'), 'cluster')));
    expect(clusters.size).toBe(1);
  });

  it('have a documented bootstrap Job as the alternative', () => {
    const job = findOne(allResources(), 'Job', 'create-topics');
    expect(job.file).toBe('k8s/kafka/create-topics-job.yaml');
    expect(container(job).args).toEqual(['node', 'dist/scripts/create-topics.js']);
  });
});

describe('the Kafka cluster', () => {
  const kafka = (): Resource => {
    const found = applied().filter((r) => r.kind === 'Kafka');
    expect(found).toHaveLength(1);
    return found[0];
  };
  const pools = (): Resource[] => applied().filter((r) => r.kind === 'KafkaNodePool');

  it('is one Strimzi v1 Kafka with node pools in the KafkaTopics namespace, named by their cluster label', () => {
    const cluster = kafka();
    expect(cluster.apiVersion).toBe('kafka.strimzi.io/v1');
    expect(pools().length).toBeGreaterThan(0);
    for (const pool of pools()) {
      expect(pool.apiVersion).toBe('kafka.strimzi.io/v1');
      expect(at(pool.body, 'metadata', 'labels', 'strimzi.io/cluster')).toBe(cluster.name);
      expect(pool.namespace).toBe(cluster.namespace);
    }
    for (const topic of applied().filter((r) => r.kind === 'KafkaTopic')) {
      expect([topic.name, at(topic.body, 'metadata', 'labels', 'strimzi.io/cluster'), topic.namespace]).toEqual([
        topic.name,
        cluster.name,
        cluster.namespace,
      ]);
    }
    // v1 has no ZooKeeper and no broker count or storage on the Kafka resource: they live in the node pools.
    expect(at(cluster.body, 'spec', 'zookeeper')).toBeUndefined();
    expect(at(cluster.body, 'spec', 'kafka', 'replicas')).toBeUndefined();
    expect(at(cluster.body, 'spec', 'kafka', 'storage')).toBeUndefined();
  });

  it('runs KRaft on 3 controllers and 3 brokers with persistent storage', () => {
    const count = (role: string): number =>
      pools()
        .filter((p) => list(at(p.body, 'spec', 'roles'), `${p.name} roles`).includes(role))
        .reduce((n, p) => n + num(at(p.body, 'spec', 'replicas'), `${p.name} replicas`), 0);
    expect(count('controller')).toBe(3);
    expect(count('broker')).toBe(3);
    for (const pool of pools()) {
      const volumes = list(at(pool.body, 'spec', 'storage', 'volumes'), `${pool.name} volumes`);
      for (const v of volumes) expect(at(v, 'type')).toBe('persistent-claim');
    }
  });

  it('keeps acks=all writes going with one node down and creates no topic by accident', () => {
    const config = record(at(kafka().body, 'spec', 'kafka', 'config'), 'kafka config');
    expect(config).toMatchObject({
      'auto.create.topics.enable': false,
      'default.replication.factor': 3,
      'min.insync.replicas': 2,
      'offsets.topic.replication.factor': 3,
      'transaction.state.log.replication.factor': 3,
      'unclean.leader.election.enable': false,
    });
    for (const topic of applied().filter((r) => r.kind === 'KafkaTopic')) {
      expect([topic.name, at(topic.body, 'spec', 'replicas'), at(topic.body, 'spec', 'config', 'min.insync.replicas')]).toEqual([
        topic.name,
        3,
        2,
      ]);
    }
  });

  it("is what the ConfigMap's KAFKA_BROKERS points at (the plain listener's bootstrap Service)", () => {
    const cluster = kafka();
    const listeners = list(at(cluster.body, 'spec', 'kafka', 'listeners'), 'listeners');
    const plain = record(
      listeners.find((l) => at(l, 'tls') === false),
      'a plaintext listener',
    );
    expect(configData().KAFKA_BROKERS).toBe(`${cluster.name}-kafka-bootstrap.${String(cluster.namespace)}.svc:${num(plain.port, 'port')}`);
  });
});

describe('the first-member Job', () => {
  it('runs the image admin command with the workspace and email from a ConfigMap, and never retries', () => {
    const job = findOne(allResources(), 'Job', 'bootstrap-member');
    expect(container(job).args).toEqual([
      'node',
      'dist/apps/identity/src/main.js',
      'admin',
      'create-member',
      '--workspace=$(BOOTSTRAP_WORKSPACE)',
      '--email=$(BOOTSTRAP_EMAIL)',
    ]);
    expect(at(job.body, 'spec', 'backoffLimit')).toBe(0);
    expect(applied().find((r) => r.name === 'bootstrap-member')).toBeUndefined();
  });

  it('has a compose twin that only runs when asked, after the identity migration, and whose arguments the command accepts', () => {
    const bootstrap = record(at(compose.docs[0], 'services', 'bootstrap'), 'compose service bootstrap');
    expect(bootstrap.profiles).toEqual(['bootstrap']);
    expect(at(bootstrap, 'depends_on', 'migrate-identity', 'condition')).toBe('service_completed_successfully');
    const command = list(bootstrap.command, 'bootstrap command').map(String);
    expect(command.slice(0, 4)).toEqual(['node', 'dist/apps/identity/src/main.js', 'admin', 'create-member']);
    // What compose makes of the arguments with BOOTSTRAP_WORKSPACE and BOOTSTRAP_EMAIL set:
    const interpolated = command
      .slice(4)
      .map((a) =>
        a
          .replace('${BOOTSTRAP_WORKSPACE:-}', 'acme')
          .replace('${BOOTSTRAP_EMAIL:-}', 'Owner@Acme.example')
          .replace('${BOOTSTRAP_TIMEZONE:-UTC}', 'UTC'),
      );
    expect(parseCreateMemberArgs(interpolated)).toMatchObject({ workspace: 'acme', email: 'owner@acme.example', timezone: 'UTC' });
    // Unset, they fail with the usage message rather than inventing a member.
    const unset = command.slice(4).map((a) => a.replace(/\$\{[A-Z_]+:-([^}]*)\}/, '$1'));
    expect(() => parseCreateMemberArgs(unset)).toThrow(/--workspace is required/);
  });
});

describe('docker-compose.yml', () => {
  const services = (): Json => record(at(compose.docs[0], 'services'), 'compose services');
  const service = (name: string): Json => record(services()[name], `compose service ${name}`);
  const built = (): [string, Json][] =>
    Object.entries(services())
      .map(([name, s]): [string, Json] => [name, record(s, name)])
      .filter(([, s]) => s.build !== undefined);

  it('builds the app image once', () => {
    expect(built()).toHaveLength(1);
    str(built()[0][1].image, 'built image');
  });

  it('runs Kafka (KRaft, no topic auto-creation), Postgres 16 and Redis 7 with health checks', () => {
    const kafka = service('kafka');
    expect(kafka.image).toBe('apache/kafka:3.9.1');
    expect(str(at(kafka, 'environment', 'KAFKA_PROCESS_ROLES'), 'KAFKA_PROCESS_ROLES')).toContain('controller');
    expect(at(kafka, 'environment', 'KAFKA_AUTO_CREATE_TOPICS_ENABLE')).toBe('false');
    expect(str(service('postgres').image, 'postgres image')).toMatch(/^postgres:16/);
    expect(str(service('redis').image, 'redis image')).toMatch(/^redis:7/);
    for (const name of ['kafka', 'postgres', 'redis']) expect(at(service(name), 'healthcheck', 'test')).toBeDefined();
  });

  it('creates the topics with a one-shot service', () => {
    const topics = service('topics');
    expect(topics.command).toEqual(['node', 'dist/scripts/create-topics.js']);
    expect(topics.image).toBe(built()[0][1].image);
    expect(topics.restart).toBe('no');
  });

  it.each(APPS)('runs %s from the one image, health-checked, after the topics', (app) => {
    const s = service(app);
    expect(s.image).toBe(built()[0][1].image);
    expect(s.command).toEqual(['node', `dist/apps/${app}/src/main.js`]);
    expect(at(s, 'environment', 'HTTP_PORT')).toBe(String(APP_PORTS[app]));
    expect(JSON.stringify(at(s, 'healthcheck', 'test'))).toMatch(/\/(readyz|healthz)/);
    expect(at(s, 'depends_on', 'topics', 'condition')).toBe('service_completed_successfully');
  });

  it.each(SERVICES)('migrates %s before starting it', (svc) => {
    const migrate = service(`migrate-${svc}`);
    expect(migrate.image).toBe(built()[0][1].image);
    expect(migrate.command).toEqual(['node', `dist/apps/${svc}/src/main.js`, 'migrate']);
    expect(migrate.restart).toBe('no');
    expect(at(service(svc), 'depends_on', `migrate-${svc}`, 'condition')).toBe('service_completed_successfully');
  });

  it('publishes the gateway on 3000 and takes JWT_SECRET from the environment', () => {
    const gateway = service('gateway');
    expect(list(gateway.ports, 'gateway ports')).toContain('3000:3000');
    expect(str(at(gateway, 'environment', 'JWT_SECRET'), 'JWT_SECRET')).toMatch(/^\$\{JWT_SECRET[:}-]/);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages[stages.length - 1] ?? '';

  it('is multi-stage, and the runtime stage ships production deps and dist/ only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/npm run build/);
    expect(runtime).toMatch(/NODE_ENV=production/);
    expect(runtime).toMatch(/node scripts\/ensure-deps\.mjs --force --omit=dev --ignore-scripts/);
    expect(runtime).toMatch(/COPY --from=\S+ \/app\/dist \.\/dist/);
  });

  it('installs from the lockfile the way every machine does, with the fallback npm ci lacks', () => {
    // No bare `npm ci` (it fails on a registry mirror without other platforms' optional packages).
    expect(dockerfile).not.toMatch(/^RUN[^\n]*\bnpm (ci|install)\b/m);
    const installs = dockerfile.match(/^RUN[^\n]*node scripts\/ensure-deps\.mjs --force/gm) ?? [];
    expect(installs).toHaveLength(2); // deps (everything) and runtime (production only)
    for (const stage of stages.filter((st) => st.includes('ensure-deps.mjs --force'))) {
      expect(stage).toMatch(/^COPY scripts\/ensure-deps\.mjs scripts\/$/m);
      expect(stage).toMatch(/^COPY package\.json package-lock\.json \.npmrc \.\/$/m);
    }
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored.filter((line) => /^(scripts|package-lock\.json|\.npmrc)\/?$/.test(line.trim()))).toEqual([]);
  });

  it('builds on the current Node LTS line (26)', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(dockerfile);
    expect(Number(image?.[1])).toBe(26);
  });

  it('runs as a numeric non-root user under tini, the gateway by default', () => {
    const user = /^USER (\d+)/m.exec(runtime);
    expect(Number(user?.[1] ?? 0)).toBeGreaterThan(0);
    expect(runtime).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]/m);
    expect(runtime).toMatch(/^CMD \["node", "dist\/apps\/gateway\/src\/main\.js"\]/m);
  });
});
