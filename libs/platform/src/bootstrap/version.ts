import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The build's version: APP_VERSION (set in the image), else package.json in the working directory. */
export const APP_VERSION: string = process.env.APP_VERSION ?? packageVersion();
