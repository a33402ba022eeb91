// Validates Kubernetes manifests against the API schemas with a real
// validator: kubernetes-models (the Kubernetes OpenAPI schemas) and
// @kubernetes-models/strimzi-kafka-operator (Strimzi's CRD schemas). Each YAML
// document picks its model class by apiVersion and kind; a document of a kind
// neither knows is an error, never skipped.
//
//   node scripts/validate-manifests.mjs [--json] [file-or-dir ...]   (default: k8s/)
//
// Exits non-zero when any document is invalid. kustomization.yaml files are
// kustomize's input, not resources, and are left to k8s/manifests.spec.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The module that holds the model classes of an apiVersion, or undefined.
 * Core (`v1`) and the built-in groups come from kubernetes-models; the
 * kafka.strimzi.io and core.strimzi.io groups from the Strimzi models.
 */
function modelModule(apiVersion) {
  if (!/^([a-z0-9.-]+\/)?v[0-9]+((alpha|beta)[0-9]+)?$/.test(apiVersion)) return undefined;
  if (/^(kafka|core)\.strimzi\.io\//.test(apiVersion)) return `@kubernetes-models/strimzi-kafka-operator/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

/** The model class for a document's apiVersion and kind, or undefined when there is none. */
async function modelClass(apiVersion, kind) {
  const specifier = typeof apiVersion === 'string' ? modelModule(apiVersion) : undefined;
  if (specifier === undefined || typeof kind !== 'string') return undefined;
  let models;
  try {
    models = await import(specifier);
  } catch {
    return undefined; // no such group/version
  }
  const model = models[kind];
  // The export must be the model of exactly this apiVersion/kind (not a helper type of the same name).
  return typeof model === 'function' && model.apiVersion === apiVersion && model.kind === kind ? model : undefined;
}

function yamlFiles(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .flatMap((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return yamlFiles(child);
      return /\.ya?ml$/.test(entry.name) ? [child] : [];
    })
    .sort();
}

/**
 * @param {string[]} paths files or directories
 * @returns {Promise<{ file: string, index: number, apiVersion?: string, kind?: string, name?: string, errors: string[] }[]>}
 *   one entry per YAML document (index within its file)
 */
export async function validateManifests(paths) {
  const results = [];
  for (const file of paths.flatMap(yamlFiles)) {
    if (basename(file) === 'kustomization.yaml') continue;
    const shown = relative(root, file).split(sep).join('/');
    const docs = parseAllDocuments(readFileSync(file, 'utf8'));
    for (const [index, doc] of docs.entries()) {
      const problems = [...doc.errors, ...doc.warnings].map((p) => `YAML: ${p.message}`);
      const body = problems.length === 0 ? doc.toJS() : undefined;
      if (problems.length === 0 && body === null) continue; // an empty document (a trailing ---)
      const apiVersion = body?.apiVersion;
      const kind = body?.kind;
      const result = { file: shown, index, apiVersion, kind, name: body?.metadata?.name, errors: problems };
      results.push(result);
      if (problems.length > 0) continue;
      const Model = await modelClass(apiVersion, kind);
      if (Model === undefined) {
        result.errors.push(`unknown kind: no schema for apiVersion ${JSON.stringify(apiVersion)} kind ${JSON.stringify(kind)}`);
        continue;
      }
      try {
        new Model(body).validate();
      } catch (error) {
        result.errors.push(...describe(error));
      }
    }
  }
  return results;
}

/** The validator's errors as `<path> <message>` lines. */
function describe(error) {
  const details = Array.isArray(error?.errors) ? error.errors : [];
  if (details.length === 0) return [String(error?.message ?? error)];
  return details.map((e) => {
    const params = e.params && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : '';
    return `${e.instancePath || '/'} ${e.message}${params}`;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const paths = args.filter((a) => a !== '--json');
  const results = await validateManifests(paths.length > 0 ? paths : [join(root, 'k8s')]);
  const invalid = results.filter((r) => r.errors.length > 0);
  if (json) {
    process.stdout.write(`${JSON.stringify(results)}\n`);
  } else {
    for (const r of results) {
      const what = `${r.file}#${String(r.index)} ${String(r.kind)} ${String(r.name)}`;
      console.log(r.errors.length === 0 ? `ok      ${what}` : `INVALID ${what}\n${r.errors.map((e) => `          ${e}`).join('\n')}`);
    }
    console.log(`${String(results.length)} documents, ${String(invalid.length)} invalid`);
  }
  process.exitCode = invalid.length > 0 ? 1 : 0;
}
