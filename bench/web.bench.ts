/**
 * Benchmark (not a test) of the web app (D-44): the JavaScript the first
 * page loads, gzipped (budget 200 KB), and how long Today takes to become
 * interactive after navigation in headless Chromium (budget 1.5 s).
 *
 *   npm run bench:web [-- --runs 5]
 *
 * Builds (scripts/run.mjs does), then starts identity, sessions, ingestion
 * and a gateway from dist/ in a database and topic prefix of its own (as the
 * test runs do; dropped afterwards) and a member with a live session and a
 * page of today's events. "Interactive" is the moment, measured in the page
 * from the start of navigation (performance.now()), when the start field is
 * enabled, the live session's timer ticks and today's timeline has its
 * events: every request of the page answered and rendered. The first run has
 * a cold HTTP cache; the others reuse the immutable assets, as a return visit does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { freePort, memberWithToken, repoRoot, startAppProcess, type AppProcess } from '@worktrack/testing';
import globalSetup from '../libs/testing/src/infra/global-setup';
import globalTeardown from '../libs/testing/src/infra/global-teardown';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 5);
const JS_BUDGET_BYTES = 200 * 1024;
const INTERACTIVE_BUDGET_MS = 1500;
const CHROMIUM = '/usr/bin/chromium';

/** The scripts index.html loads before anything else: its module entry and the modules it preloads. */
function firstPageScripts(webRoot: string): Array<{ file: string; raw: number; gzip: number }> {
  const html = readFileSync(join(webRoot, 'index.html'), 'utf8');
  const urls = [...html.matchAll(/<script[^>]+src="([^"]+\.js)"|<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g)].map(
    (m) => m[1] ?? m[2],
  );
  return urls.map((url) => {
    const body = readFileSync(join(webRoot, url));
    return { file: url, raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
  });
}

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
  const webRoot = join(repoRoot(), 'dist', 'web');
  const scripts = firstPageScripts(webRoot);
  const gzip = scripts.reduce((sum, s) => sum + s.gzip, 0);
  console.log('first page JavaScript (gzip -9):');
  for (const s of scripts) console.log(`  ${s.file}  ${kb(s.raw)} raw, ${kb(s.gzip)} gzip`);
  console.log(`  total ${kb(gzip)} gzip (budget ${kb(JS_BUDGET_BYTES)}): ${gzip <= JS_BUDGET_BYTES ? 'within' : 'OVER'}`);

  await globalSetup();
  const processes: AppProcess[] = [];
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const port = await freePort();
    const env = { LOG_LEVEL: 'warn', PUBLIC_URL: `http://127.0.0.1:${port}` };
    processes.push(...(await Promise.all(['identity', 'sessions', 'ingestion'].map((app) => startAppProcess(app, env, 60_000)))));
    const gateway = await startAppProcess('gateway', { ...env, HTTP_PORT: String(port) }, 60_000);
    processes.push(gateway);
    const owner = memberWithToken({ workspace: `bench-web-${Date.now()}`, email: `owner-${Date.now()}@example.com` });
    const send = async <T>(path: string, token: string | null, body: unknown): Promise<T> => {
      const res = await fetch(`${gateway.url}/v1${path}`, {
        method: 'POST',
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    // The member in the browser joins by an invite (D-38), so it has a password and a refresh cookie (D-40).
    const email = `bench-${Date.now()}@example.com`;
    const password = 'benchmark password 1234';
    const invite = await send<{ data: { accept_url: string } }>('/invites', owner.token, { email });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(invite.data.accept_url);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Join the workspace' }).click();
    await page.getByLabel('What are you working on?').waitFor();
    // A live session and a page of today's events, through a session JWT of the member's own.
    const { data } = await send<{ data: { access_token: string } }>('/auth/login', null, { email, password });
    await send('/sessions', data.access_token, { intent_text: 'Benchmark the web app', source: 'timer' });
    await send('/activity/events', data.access_token, {
      events: Array.from({ length: 50 }, (_, i) => ({ event_type: 'build', source_type: 'ci', external_id: `b-${i}` })),
    });
    // The first measured load starts with an empty HTTP cache (the sign-in above filled it).
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.clearBrowserCache');
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      await page.goto(`${gateway.url}/today`, { waitUntil: 'commit' });
      await page.getByLabel('What are you working on?').waitFor();
      await page.getByRole('timer').waitFor();
      await page.getByText('ci · build').first().waitFor();
      times.push(await page.evaluate<number>('performance.now()'));
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(
      `Today interactive after navigation (${RUNS} runs): first (cold cache) ${times[0].toFixed(0)} ms, median ${median.toFixed(0)} ms, worst ${sorted[sorted.length - 1].toFixed(0)} ms`,
    );
    console.log(`  budget ${INTERACTIVE_BUDGET_MS} ms: ${sorted[sorted.length - 1] <= INTERACTIVE_BUDGET_MS ? 'within' : 'OVER'}`);
  } finally {
    await browser.close();
    await Promise.all(processes.map((p) => p.stop()));
    await globalTeardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
