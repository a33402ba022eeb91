/**
 * Every manifest under k8s/ against the Kubernetes API schemas
 * (kubernetes-models) and Strimzi's CRD schemas (kafka.strimzi.io/v1 Kafka,
 * KafkaNodePool, KafkaTopic), with the validator those packages ship, as
 * scripts/validate-manifests.mjs runs it (`npm run k8s:validate`). A document
 * of a kind neither knows fails: nothing is skipped. The packages are ES
 * modules only, so the validator runs in its own Node process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '..');
const SCRIPT = join(ROOT, 'scripts', 'validate-manifests.mjs');

interface Result {
  readonly file: string;
  readonly index: number;
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly errors: readonly string[];
}

function validate(...paths: string[]): { status: number | null; results: Result[] } {
  const run = spawnSync(process.execPath, [SCRIPT, '--json', ...paths], { cwd: ROOT, encoding: 'utf8' });
  if (run.stdout.trim() === '') throw new Error(`validate-manifests.mjs printed nothing: ${run.stderr}`);
  return { status: run.status, results: JSON.parse(run.stdout) as Result[] };
}

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFilesUnder(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

const repo = validate(join(ROOT, 'k8s'));

describe('k8s/ against the Kubernetes and Strimzi schemas', () => {
  it('validates every document of every manifest (kustomization.yaml is kustomize input, not a resource)', () => {
    const documents = yamlFilesUnder(join(ROOT, 'k8s'))
      .filter((path) => !path.endsWith('kustomization.yaml'))
      .flatMap((path) => parseAllDocuments(readFileSync(path, 'utf8')).filter((doc) => doc.contents !== null));
    expect(documents.length).toBeGreaterThan(40);
    expect(repo.results).toHaveLength(documents.length);
  });

  it.each(repo.results.map((r) => [`${r.file}#${String(r.index)} ${String(r.kind)} ${String(r.name)}`, r] as const))(
    '%s is valid',
    (_what, result) => {
      expect(result.errors).toEqual([]);
    },
  );

  it('covers the Strimzi v1 resources too', () => {
    const kinds = new Set(repo.results.filter((r) => r.apiVersion === 'kafka.strimzi.io/v1').map((r) => r.kind));
    expect([...kinds].sort()).toEqual(['Kafka', 'KafkaNodePool', 'KafkaTopic']);
  });

  it('the command exits 0', () => {
    expect(repo.status).toBe(0);
  });
});

describe('the validator rejects what the schemas reject (it is not a no-op)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'worktrack-k8s-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const invalid = (yaml: string): string[] => {
    const file = join(dir, `m${String(Math.random()).slice(2)}.yaml`);
    writeFileSync(file, yaml);
    const { status, results } = validate(file);
    expect(status).toBe(1);
    expect(results).toHaveLength(1);
    return [...results[0].errors];
  };

  it('a Deployment with a wrong type, a bad enum value and a probe without a port', () => {
    const errors = invalid(`apiVersion: apps/v1
kind: Deployment
metadata: { name: x }
spec:
  replicas: "two"
  selector: { matchLabels: { app: x } }
  template:
    metadata: { labels: { app: x } }
    spec:
      containers:
        - name: x
          image: x
          imagePullPolicy: Sometimes
          readinessProbe: { httpGet: { path: /readyz } }
`).join('\n');
    expect(errors).toMatch(/\/spec\/replicas must be integer/);
    expect(errors).toMatch(/imagePullPolicy must be equal to one of the allowed values/);
    expect(errors).toMatch(/readinessProbe\/httpGet must have required property port/);
  });

  it.each([
    ['a misspelt kind', 'apiVersion: v1\nkind: Servic\nmetadata: { name: x }\n'],
    ['a kind of no known group', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: x }\n'],
    ['a type that is not a resource', 'apiVersion: apps/v1\nkind: DeploymentSpec\nmetadata: { name: x }\n'],
    ['no apiVersion', 'kind: ConfigMap\nmetadata: { name: x }\n'],
  ])('%s fails as an unknown kind', (_what, yaml) => {
    expect(invalid(yaml)).toEqual([expect.stringMatching(/^unknown kind/)]);
  });

  it('Strimzi: a KafkaTopic with a non-integer partition count, a v1 Kafka without listeners', () => {
    expect(
      invalid('apiVersion: kafka.strimzi.io/v1\nkind: KafkaTopic\nmetadata: { name: t }\nspec: { partitions: "six", replicas: 3 }\n'),
    ).toEqual([expect.stringMatching(/\/spec\/partitions must be integer/)]);
    expect(invalid('apiVersion: kafka.strimzi.io/v1\nkind: Kafka\nmetadata: { name: k }\nspec: { kafka: {} }\n').join('\n')).toMatch(
      /\/spec\/kafka must have required property listeners/,
    );
  });

  it('YAML that does not parse', () => {
    expect(invalid('apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x\n')).toEqual([expect.stringMatching(/^YAML: /)]);
  });
});
