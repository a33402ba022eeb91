import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { isSecretName, redactString } from '../logging/redact';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** A rejected value as the error shows it: never the value of a secret (its length only), URLs without their password. */
function shown(name: string, value: string | undefined): string {
  if (value === undefined) return 'null';
  if (isSecretName(name)) return `a value of ${value.length} characters, not shown`;
  return JSON.stringify(redactString(value));
}

/**
 * Builds a typed config object from environment variables and validates it
 * (fail fast at boot). Property names are the variable names; class field
 * initialisers are the defaults. Unknown variables are ignored.
 */
export function loadConfig<T extends object>(cls: new () => T, env: NodeJS.ProcessEnv = process.env): T {
  const source: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    // An empty variable means "not set", so the default applies.
    if (value !== undefined && value !== '') source[key] = value;
  }
  const config = plainToInstance(cls, source, { excludeExtraneousValues: true, exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: true });
  const problems = errors.flatMap((e) =>
    Object.values(e.constraints ?? {}).map((issue) => `${e.property}: ${issue} (got ${shown(e.property, source[e.property])})`),
  );
  const extra = (config as { crossCheck?: () => string[] }).crossCheck?.() ?? [];
  if (problems.length + extra.length > 0) throw new ConfigError([...problems, ...extra]);
  return config;
}
