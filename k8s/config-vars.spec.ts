/**
 * Every variable an app reads is documented and wired in every
 * documented deploy. The variables are not listed here: they are read from the
 * apps' config classes themselves (each `@EnvString/@EnvInt/@EnvBool` field is
 * an `@Expose`d property), so a variable added to a config class fails this
 * test until it is in `.env.example`, the README table, the Kubernetes config
 * (ConfigMap, Secret example or the Deployments) and docker-compose.yml.
 */
import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { parseDocument } from 'yaml';
import { ConnectorsConfig } from '../apps/connectors/src/connectors.config';
import { CorrelationConfig } from '../apps/correlation/src/correlation.config';
import { GatewayConfig } from '../apps/gateway/src/gateway.config';
import { IdentityConfig } from '../apps/identity/src/identity.config';
import { IngestionConfig } from '../apps/ingestion/src/ingestion.config';
import { PlateConfig } from '../apps/plate/src/plate.config';
import { SessionsConfig } from '../apps/sessions/src/sessions.config';
import { WebhooksConfig } from '../apps/webhooks/src/webhooks.config';
import { ReportingConfig } from '../apps/reporting/src/reporting.config';
import { loadConfig, ConfigError } from '@worktrack/platform';

const ROOT = join(__dirname, '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

const CONFIGS = {
  gateway: GatewayConfig,
  identity: IdentityConfig,
  ingestion: IngestionConfig,
  correlation: CorrelationConfig,
  sessions: SessionsConfig,
  plate: PlateConfig,
  connectors: ConnectorsConfig,
  webhooks: WebhooksConfig,
  reporting: ReportingConfig,
} as const;

/** The environment variables one config class reads (its exposed properties, inherited ones included). */
function variablesOf(cls: new () => object): string[] {
  return defaultMetadataStorage.getExposedProperties(cls, 0 /* PLAIN_TO_CLASS */).sort();
}

const ALL = [...new Set(Object.values(CONFIGS).flatMap((cls) => variablesOf(cls)))].sort();

/** Every `environment:` key anywhere in docker-compose.yml (merge keys resolved). */
function composeVariables(): Set<string> {
  const doc = parseDocument(read('docker-compose.yml'), { merge: true }).toJS({ maxAliasCount: -1 }) as {
    services: Record<string, { environment?: Record<string, unknown> }>;
  };
  return new Set(Object.values(doc.services).flatMap((s) => Object.keys(s.environment ?? {})));
}

/** Every key of the ConfigMap, the Secret example and each Deployment's `env`. */
function kubernetesVariables(): Set<string> {
  const keys = new Set<string>();
  const config = parseDocument(read('k8s/config.yaml')).toJS() as { data: Record<string, unknown> };
  const secret = parseDocument(read('k8s/secret.example.yaml')).toJS() as { stringData: Record<string, unknown> };
  for (const k of [...Object.keys(config.data), ...Object.keys(secret.stringData)]) keys.add(k);
  for (const file of readdirSync(join(ROOT, 'k8s/apps'))) {
    for (const m of read(`k8s/apps/${file}`).matchAll(/name: ([A-Z][A-Z0-9_]+)\b/g)) keys.add(m[1]);
  }
  return keys;
}

describe('configuration variables', () => {
  it('finds the variables in the config classes (the inventory is not empty or partial)', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(35);
    expect(ALL).toEqual(expect.arrayContaining(['CONNECTOR_SECRET_KEYS', 'OPERATOR_TOKEN', 'FEED_ALLOW_PRIVATE_HOSTS', 'HTTP_PORT']));
  });

  it('lists every variable in .env.example', () => {
    const listed = new Set([...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect(ALL.filter((v) => !listed.has(v))).toEqual([]);
  });

  it('documents every variable in the README configuration table', () => {
    const readme = read('README.md');
    expect(ALL.filter((v) => !readme.includes(`| \`${v}\` |`))).toEqual([]);
  });

  it('sets every variable in the Kubernetes ConfigMap, the Secret example or the Deployments', () => {
    const k8s = kubernetesVariables();
    expect(ALL.filter((v) => !k8s.has(v))).toEqual([]);
  });

  it('sets every variable in docker-compose.yml', () => {
    const compose = composeVariables();
    expect(ALL.filter((v) => !compose.has(v))).toEqual([]);
  });

  it('has the production compose command set every secret the production apps require', () => {
    const header = read('docker-compose.yml').split('\nname:')[0];
    const command = header.slice(header.indexOf('NODE_ENV=production'));
    for (const secret of [
      'JWT_SECRET',
      'CURSOR_SECRET',
      'OPERATOR_TOKEN',
      'CONNECTOR_SECRET_KEYS',
      'WEBHOOK_SECRET_KEYS',
      'IDENTITY_SECRET_KEYS',
      'SESSION_SIGNING_KEYS',
    ]) {
      expect(command).toContain(`${secret}=`);
    }
  });

  it('refuses each production secret left at its development default, naming it and never printing a value', () => {
    const production = { NODE_ENV: 'production' };
    const cases: [new () => object, string][] = [
      [GatewayConfig, 'JWT_SECRET'],
      [GatewayConfig, 'OPERATOR_TOKEN'],
      [ConnectorsConfig, 'CONNECTOR_SECRET_KEYS'],
      [IdentityConfig, 'CURSOR_SECRET'],
    ];
    for (const [cls, name] of cases) {
      let error: unknown;
      try {
        loadConfig(cls, production);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toContain(name);
    }
    // A rejected secret is named with its length, never its value.
    const secret = 'k1:not-base64-and-secret-value';
    let message = '';
    try {
      loadConfig(ConnectorsConfig, { ...production, CONNECTOR_SECRET_KEYS: secret });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('CONNECTOR_SECRET_KEYS');
    expect(message).not.toContain('not-base64-and-secret-value');
  });
});
