import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { freePort, repoRoot, startAppProcess, startTestOidcProvider, type AppProcess, type TestOidcProvider } from '@worktrack/testing';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-sync',
];
const run = randomUUID().slice(0, 8);

/** The web app signing in through a real OpenID provider in Debian's chromium (D-41, D-44). */
describe('web app: single sign-on in a real browser (D-41)', () => {
  jest.setTimeout(300_000); // five apps and a browser on a shared machine
  let processes: AppProcess[] = [];
  let gateway: AppProcess;
  let idp: TestOidcProvider;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: npm test installs Debian's chromium package`);
    if (!existsSync(join(repoRoot(), 'dist', 'web', 'index.html'))) throw new Error('dist/web is missing: run npm run build');
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    idp = await startTestOidcProvider([`${publicUrl}/v1/auth/oidc/corp/callback`]);
    const providers = JSON.stringify([
      {
        id: 'corp',
        name: 'Corp SSO',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        workspace: `web-sso-${run}`,
        allowed_email_domains: ['corp.example'],
        allow_signup: true,
      },
    ]);
    processes = await Promise.all([
      startAppProcess('identity', { PUBLIC_URL: publicUrl, OIDC_PROVIDERS: providers, PASSWORD_LOGIN: 'false' }, 180_000),
      ...['sessions', 'ingestion', 'plate'].map((app) => startAppProcess(app, { PUBLIC_URL: publicUrl }, 180_000)),
    ]);
    gateway = await startAppProcess('gateway', { HTTP_PORT: String(port), PUBLIC_URL: publicUrl, REQUEST_TIMEOUT_MS: '5000' }, 180_000);
    processes.push(gateway);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(processes.map((p) => p.stop()));
    await idp?.close();
  });

  it('shows the provider and no password form, signs in by its button and lands on Today; a reload stays signed in', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    idp.signInAs({ sub: `ada-${run}`, email: `ada-${run}@corp.example`, email_verified: true, name: 'Ada SSO' });

    await page.goto(`${gateway.url}/sign-in`);
    const button = page.getByRole('link', { name: 'Sign in with Corp SSO' });
    await button.waitFor();
    expect(await page.getByLabel('Password').count()).toBe(0);
    await button.click();
    await page.getByRole('heading', { name: 'Today', exact: true }).waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).origin).toBe(gateway.url);
    await page.reload();
    await page.getByRole('heading', { name: 'Today', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('a refused sign-in ends on a page that says why, with the way back (D-41)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    idp.signInAs({ sub: `eve-${run}`, email: `eve-${run}@corp.example`, email_verified: false });
    await page.goto(`${gateway.url}/sign-in`);
    await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await page.getByRole('heading', { name: 'Sign-in did not work' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('alert').textContent()).toContain('has not verified your email address');
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await page.getByRole('link', { name: 'Sign in with Corp SSO' }).waitFor();
    await context.close();
  });
});
