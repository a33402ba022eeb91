// The apps of the system, their default ports and how to run them from dist/.
// Shared by scripts/start.mjs and scripts/migrate.mjs (and the e2e harness
// reads the same layout from libs/testing).
import { join } from 'node:path';

export const SERVICES = ['identity', 'ingestion', 'correlation', 'sessions', 'plate', 'connectors', 'webhooks', 'reporting'];
export const APPS = ['gateway', ...SERVICES];
export const DEFAULT_PORTS = {
  gateway: 3000,
  identity: 3101,
  ingestion: 3102,
  correlation: 3103,
  sessions: 3104,
  plate: 3105,
  connectors: 3106,
  reporting: 3108,
  webhooks: 3109,
};
export const mainOf = (root, app) => join(root, 'dist', 'apps', app, 'src', 'main.js');
/** Several services in one process (WORKTRACK_SERVICES; scripts/services-host.ts). */
export const servicesHostOf = (root) => join(root, 'dist', 'scripts', 'services-host.js');
