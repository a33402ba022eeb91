import { existsSync } from 'node:fs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { parse } from 'yaml';
import { boundPort, createHttpApp, createLogger, Metrics } from '@worktrack/platform';
import { testConfig } from '@worktrack/testing';
import { configureGateway } from '../src/gateway.app';
import { GatewayConfig } from '../src/gateway.config';
import { GatewayModule } from '../src/gateway.module';
import { gatewayErrors } from '../src/http/error-envelope';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

interface Parameter {
  name: string;
  in: string;
  schema?: object;
  $ref?: string;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: object; examples?: Record<string, unknown> }> };
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: object;
}

/**
 * The reference page as a user meets it. The real `/docs` of a
 * gateway served here, in headless Chromium: every operation of the document
 * is on the page, and "Try it out" starts from values that the API accepts —
 * each pre-filled body (every named example of a body that is one of several
 * schemas) and each path parameter validates against its schema.
 */
describe('the reference page at GET /docs in a browser', () => {
  let app: NestFastifyApplication;
  let browser: Browser | undefined;
  let page: Page;
  let doc: OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  let compiled = 0;
  const errorsOf = (schema: object, value: unknown): unknown => {
    const check = ajv.compile({
      $id: `https://worktrack.test/page/${compiled++}`,
      ...(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://worktrack.test/openapi#/components/')) as object),
    });
    return check(value) ? [] : check.errors;
  };

  beforeAll(async () => {
    // Not a skip: without the browser this stage proves nothing, so it fails (.ci/run installs Debian's chromium).
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)`);
    const config = testConfig(GatewayConfig);
    const logger = createLogger('gateway', 'silent', config.INSTANCE_ID);
    const metrics = new Metrics('gateway');
    app = await createHttpApp(GatewayModule.forRoot(config, logger, metrics), {
      config,
      logger,
      metrics,
      errors: gatewayErrors(logger),
      configure: configureGateway,
    });
    const base = `http://127.0.0.1:${boundPort(app)}`;
    doc = parse(await (await fetch(`${base}/openapi.yaml`)).text()) as OpenApiDocument;
    ajv.addSchema({ $id: 'https://worktrack.test/openapi', components: doc.components });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 120_000 });
    page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock', { timeout: 120_000 });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const documented = (): Array<{ name: string; path: string; operation: Operation }> =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, path, operation: item[m] })),
    );

  /** The operation blocks of the page, by `METHOD /path`. */
  async function blocks(): Promise<Map<string, Locator>> {
    const found = new Map<string, Locator>();
    const all = page.locator('.opblock');
    for (let i = 0; i < (await all.count()); i++) {
      const block = all.nth(i);
      const method = (await block.locator('.opblock-summary-method').first().innerText()).trim().toUpperCase();
      const path = await block.locator('.opblock-summary-path').first().getAttribute('data-path');
      found.set(`${method} ${path}`, block);
    }
    return found;
  }

  it('shows every operation of the document, under its operation id', async () => {
    const onPage = await blocks();
    expect([...onPage.keys()].sort()).toEqual(
      documented()
        .map((o) => o.name)
        .sort(),
    );
    for (const { name, operation } of documented()) {
      // Swagger UI names each block `operations-<tag>-<operationId>` (dots escaped): the deep link a reader shares.
      const id = await onPage.get(name)?.getAttribute('id');
      expect({ name, id }).toEqual({
        name,
        id: expect.stringMatching(new RegExp(`-${operation.operationId.replace('.', '\\\\\\.')}$`)) as unknown,
      });
    }
    expect(await page.locator('#swagger-ui .info .title').innerText()).toContain('worktrack API');
  });

  it('pre-fills "Try it out" with bodies and path parameters that validate against their schemas', async () => {
    const onPage = await blocks();
    let bodies = 0;
    for (const { name, operation } of documented()) {
      const block = onPage.get(name);
      if (!block) throw new Error(`${name} is not on the page`);
      await block.locator('.opblock-summary').first().click();
      await block.locator('button.try-out__btn').click();

      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'path' || !parameter.schema) continue;
        const value = await block.locator(`tr[data-param-name="${parameter.name}"] input`).inputValue();
        expect({ name, parameter: parameter.name, value, errors: errorsOf(parameter.schema, value) }).toEqual({
          name,
          parameter: parameter.name,
          value: expect.stringMatching(/./) as unknown,
          errors: [],
        });
      }

      const media = operation.requestBody?.content['application/json'];
      if (media) {
        // A body with named examples: the page offers each in a list; every one of them must be valid.
        const names = Object.keys(media.examples ?? {});
        let choice: Locator | undefined;
        const selects = block.locator('select');
        for (let i = 0; names.length > 0 && i < (await selects.count()); i++) {
          const options = await selects.nth(i).locator('option').all();
          const values = await Promise.all(options.map((option) => option.getAttribute('value')));
          if (names.every((n) => values.includes(n))) choice = selects.nth(i);
        }
        expect({ name, examplesOffered: names.length === 0 || choice !== undefined }).toEqual({ name, examplesOffered: true });
        for (const option of names.length > 0 ? names : ['']) {
          if (option && choice) await choice.selectOption(option);
          const text = await block.locator('textarea.body-param__text').inputValue();
          let value: unknown;
          expect(() => (value = JSON.parse(text) as unknown)).not.toThrow();
          expect({ name, option, errors: errorsOf(media.schema, value) }).toEqual({ name, option, errors: [] });
          bodies++;
        }
      }
      await block.locator('.opblock-summary').first().click(); // collapse: the page stays light
    }
    // One body per operation with a body, and every named example of those that offer several (a single record or a batch).
    const expected = documented()
      .map((o) => o.operation.requestBody?.content['application/json'])
      .filter((media) => media !== undefined)
      .reduce((sum, media) => sum + Math.max(1, Object.keys(media.examples ?? {}).length), 0);
    expect(bodies).toBe(expected);
    expect(expected).toBeGreaterThan(documented().filter((o) => o.operation.requestBody).length);
  }, 1_200_000);
});
