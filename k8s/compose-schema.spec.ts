/**
 * docker-compose.yml against the Compose Specification's own JSON
 * schema (compose-spec.json, as shipped by the `docker-compose` npm package
 * that testcontainers depends on), with a real JSON Schema validator (ajv 8),
 * after YAML merge keys are resolved as Compose resolves them. Not a check
 * written here: a property the specification does not know, a wrong type or
 * a malformed `depends_on` fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parseDocument } from 'yaml';

const ROOT = join(__dirname, '..');
const schema = JSON.parse(readFileSync(require.resolve('docker-compose/schema/compose-spec.json'), 'utf8')) as Record<string, unknown>;

function validator(): ValidateFunction {
  // The schema names draft-07 by an https URL ajv does not register; its content is draft-07, ajv's default draft.
  const body: Record<string, unknown> = { ...schema };
  delete body.$schema;
  // strict: false: the schema uses keywords of its own (e.g. `deprecated`) that a strict ajv refuses to compile.
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(body);
}

function composeFile(text: string): unknown {
  const doc = parseDocument(text, { merge: true });
  expect(doc.errors).toEqual([]);
  return doc.toJS({ maxAliasCount: -1 });
}

describe('docker-compose.yml against the Compose Specification schema', () => {
  const validate = validator();

  it('is valid', () => {
    const valid = validate(composeFile(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the validator rejects what the specification rejects (it is not a no-op)', () => {
    const bad = `services:\n  app:\n    image: x\n    restart: sometimes-maybe\n    depends_on: { db: { condition: when-i-feel-like-it } }\n    not_a_compose_key: 1\n`;
    expect(validate(composeFile(bad))).toBe(false);
    const paths = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`).join('\n');
    expect(paths).toMatch(/not_a_compose_key|additional properties/);
    expect(paths).toMatch(/condition/);
  });
});
