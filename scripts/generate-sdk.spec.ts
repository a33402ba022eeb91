import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_DIR, renderSdkSources } from './generate-sdk';

describe('the SDK generated from the OpenAPI document', () => {
  it('is up to date with the routes and DTOs (stale: run npm run generate:sdk)', async () => {
    const files = await renderSdkSources();
    expect(Object.keys(files).sort()).toEqual(['error-codes.ts', 'openapi.ts', 'request-schemas.ts']);
    for (const [name, text] of Object.entries(files)) {
      const committed = readFileSync(join(GENERATED_DIR, name), 'utf8');
      // A plain comparison first: a diff of 6000 lines is no help, the file name and command are.
      if (committed !== text) throw new Error(`libs/sdk/src/generated/${name} is stale: run npm run generate:sdk`);
    }
  }, 60_000);
});
