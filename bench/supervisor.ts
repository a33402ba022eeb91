import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '@worktrack/testing';

/** What the benches use of `scripts/supervisor.mjs` (the supervisor `npm start` runs). */
export interface SupervisorLike {
  add(
    name: string,
    spec: {
      command: string;
      args: string[];
      cwd?: string;
      env?: NodeJS.ProcessEnv;
      onStart?: (c: ChildProcess) => void;
      onOutput?: (chunk: Buffer) => void;
    },
  ): void;
  child(name: string): ChildProcess | undefined;
  stop(timeoutMs?: number): Promise<void>;
}

/** A real dynamic import (the benches compile to CommonJS; the supervisor is an ES module). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- swc compiles import() to require(), which cannot load an ES module
const importModule = new Function('path', 'return import(path)') as (
  path: string,
) => Promise<{ Supervisor: new (o: object) => SupervisorLike }>;

/** A new supervisor of the project's own `scripts/supervisor.mjs`. */
export async function createSupervisor(options: object): Promise<SupervisorLike> {
  const { Supervisor } = await importModule(join(repoRoot(), 'scripts', 'supervisor.mjs'));
  return new Supervisor(options);
}
