/**
 * Benchmark (not a test) of the web app (D-44): the JavaScript the first
 * page loads, gzipped (budget 200 KB), and how long Today takes to become
 * interactive after navigation in headless Chromium (budget 1.5 s), with the
 * stack under the ingest benchmark's load.
 *
 *   npm run bench:web [-- --runs 5 --warmup 3 --connections 16 --members 10 --web-root <dir>]
 *
 * Builds (scripts/run.mjs does), then starts identity, sessions, ingestion,
 * correlation and a gateway from dist/ in a database and topic prefix of its
 * own (as the test runs do; dropped afterwards), a member with a live session
 * and a page of today's events, and the ingest load (bench/ingest-load.ts:
 * batches of 100 events from `--connections` connections over `--members`
 * members, each with a running session, as bench:ingest drives it). After
 * `--warmup` seconds of load, Today is loaded `--runs` times with a cold HTTP
 * cache, then `--runs` times with a warm one (the immutable assets reused, as
 * a return visit does); the load stops after the last.
 *
 * "Interactive" is the moment, from the start of navigation
 * (performance.now()), when the start field is enabled, the live session's
 * timer is shown and today's timeline has its events: every request of the
 * page answered and rendered. A MutationObserver the bench adds to the page
 * notes it in the page itself; each load's request waterfall comes from the
 * Resource Timing entries.
 *
 * Printed beside it: the ingest throughput achieved over the load, CPU per
 * process over the load's window (bench/cpu-sampler.ts; per 100-event batch),
 * and the raw ceiling: the same page's files and the same API answers (those
 * the gateway gave the bench's last load, replayed as bytes) served by a bare
 * node:http server in a process of its own, loaded alternately with the real
 * one by the same browser under the same load: the floor the browser itself
 * sets (download, parse, evaluation, render, one round trip per request wave).
 *
 * `--web-root <dir>`: the gateway and the floor serve another build of the
 * app (e.g. a copy of dist/web made before a change), for an A/B of two
 * builds run back to back.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Page, type Response } from 'playwright-core';
import { freePort, repoRoot, startAppProcess, type AppProcess } from '@worktrack/testing';
import globalSetup from '../libs/testing/src/infra/global-setup';
import globalTeardown from '../libs/testing/src/infra/global-teardown';
import { CpuSampler, formatCpu } from './cpu-sampler';
import { BATCH, createLoadMembers, driveIngest, ingestLoadOptions, loadSummary, startTimerSessions } from './ingest-load';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 5);
const WEB_ROOT = process.argv.includes('--web-root') ? process.argv[process.argv.indexOf('--web-root') + 1] : undefined;
const WARMUP_SECONDS = arg('warmup', 3);
/** Ten members are enough for the load a busy machine reaches (each may send 600 requests a minute). */
const LOAD = ingestLoadOptions({ members: 10 });
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
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const step = (what: string): void => console.log(`${new Date().toISOString().slice(11, 19)} ${what} (load average ${load()})`);

/** An API answer as the gateway gave it, replayed by the floor server. */
interface Answer {
  key: string;
  status: number;
  type: string;
  body: string; // base64
}

/** Requests are told apart by method, path and the `state` filter (the live session asks for active and paused). */
function answerKey(method: string, url: URL): string {
  const state = url.searchParams.get('state');
  return `${method} ${url.pathname}${state ? `?state=${state}` : ''}`;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The floor server (this file run with `--floor-server`): the build's page
 * (never stored) and hashed assets (immutable) from memory, and the recorded
 * API answers, with no work beyond a map lookup.
 */
function floorServer(): void {
  process.once('message', (message: { webRoot: string; answers: Answer[] }) => {
    const page = readFileSync(join(message.webRoot, 'index.html'));
    const answers = new Map(message.answers.map((a) => [a.key, { ...a, bytes: Buffer.from(a.body, 'base64') }]));
    const assets = new Map<string, Buffer>();
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://floor');
      if (url.pathname.startsWith('/v1/')) {
        const answer = answers.get(answerKey(req.method ?? 'GET', url));
        req.resume();
        if (!answer) res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"NOT_FOUND"}}');
        else res.writeHead(answer.status, { 'content-type': answer.type, 'cache-control': 'no-store' }).end(answer.bytes);
        return;
      }
      if (url.pathname.startsWith('/assets/')) {
        const name = url.pathname.slice('/assets/'.length);
        let body = assets.get(name);
        if (!body && !name.includes('/') && !name.includes('..')) {
          try {
            body = readFileSync(join(message.webRoot, 'assets', name));
            assets.set(name, body);
          } catch {
            body = undefined;
          }
        }
        if (!body) res.writeHead(404).end();
        else
          res
            .writeHead(200, {
              'content-type': TYPES[extname(name)] ?? 'application/octet-stream',
              'cache-control': 'public, max-age=31536000, immutable',
            })
            .end(body);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
    });
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}

async function startFloor(webRoot: string, answers: Answer[]): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(__filename, ['--floor-server'], { stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`floor server exited with ${code}`)));
    child.send({ webRoot, answers });
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** Notes in the page, at the first DOM change that completes it, when Today became interactive. */
const INTERACTIVE_OBSERVER = `(() => {
  const check = () => {
    if (window.__interactiveAt !== undefined) return;
    const label = [...document.querySelectorAll('label')].find((l) => l.textContent.trim() === 'What are you working on?');
    const input = label && document.getElementById(label.htmlFor);
    if (!input || input.disabled) return;
    if (!document.querySelector('[role="timer"]')) return;
    if (window.__usableAt === undefined) window.__usableAt = performance.now();
    if (!document.body.textContent.includes('ci · build')) return;
    window.__interactiveAt = performance.now();
    observer.disconnect();
  };
  const observer = new MutationObserver(check);
  document.addEventListener('DOMContentLoaded', () => {
    observer.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
    check();
  });
})();`;

/** The load's interactive moment and its Navigation and Resource Timing entries, read in the page. */
const WATERFALL = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource');
  const files = resources.filter((r) => /\\.(js|css)$/.test(new URL(r.name).pathname));
  const api = resources
    .filter((r) => new URL(r.name).pathname.startsWith('/v1/'))
    .map((r) => {
      const u = new URL(r.name);
      const state = u.searchParams.get('state');
      return { name: u.pathname.slice(3) + (state ? '?state=' + state : ''), start: r.startTime, end: r.responseEnd };
    })
    .sort((a, b) => a.start - b.start);
  return {
    interactive: window.__interactiveAt,
    usable: window.__usableAt,
    html: nav.responseEnd,
    assets: { start: Math.min(...files.map((f) => f.startTime)), end: Math.max(...files.map((f) => f.responseEnd)) },
    api,
  };
})()`;

interface Timing {
  name: string;
  start: number;
  end: number;
}

interface Load {
  interactive: number;
  /** The start field enabled and the live session's timer shown (today's events may still be on the way). */
  usable: number;
  /** The page's HTML answered (navigation responseEnd). */
  html: number;
  /** Scripts and styles: first start, last end. */
  assets: { start: number; end: number };
  /** Every /v1 request, in the order they started. */
  api: Timing[];
}

async function measure(page: Page, url: string): Promise<Load> {
  await page.goto(`${url}/today`, { waitUntil: 'commit' });
  try {
    await page.getByLabel('What are you working on?').waitFor();
    await page.getByRole('timer').waitFor();
    await page.getByText('ci · build').first().waitFor();
    await page.waitForFunction('window.__interactiveAt !== undefined');
  } catch (err) {
    const text = await page
      .locator('body')
      .innerText()
      .catch(() => '(no body)');
    throw new Error(`Today did not become interactive at ${page.url()}; the page says: ${text.slice(0, 300)}`, { cause: err });
  }
  return page.evaluate<Load>(WATERFALL);
}

const ms = (n: number): string => n.toFixed(0);

/** One load's waterfall on one line. */
function waterfall(l: Load): string {
  const api = l.api.map((a) => `${a.name} ${ms(a.start)}→${ms(a.end)}`).join(', ');
  return `html ${ms(l.html)} | usable ${ms(l.usable)} | js+css ${ms(l.assets.start)}→${ms(l.assets.end)} | ${api} | interactive ${ms(l.interactive)}`;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function summary(label: string, loads: Load[]): string {
  const t = loads.map((l) => l.interactive);
  const sorted = [...t].sort((a, b) => a - b);
  return `${label.padEnd(18)} first ${ms(t[0])} ms, median ${ms(median(t))} ms, worst ${ms(sorted[sorted.length - 1])} ms (${t.map(ms).join(', ')})`;
}

/** The cold loads' median phases: where the time goes. */
function phases(loads: Load[]): string {
  const lastAssets = median(loads.map((l) => l.assets.end));
  const firstApi = median(loads.map((l) => l.api[0]?.start ?? NaN));
  const firstApiEnd = median(loads.map((l) => l.api[0]?.end ?? NaN));
  const lastApiStart = median(loads.map((l) => Math.max(...l.api.map((a) => a.start))));
  const lastApiEnd = median(loads.map((l) => Math.max(...l.api.map((a) => a.end))));
  const interactive = median(loads.map((l) => l.interactive));
  return [
    `html answered ${ms(median(loads.map((l) => l.html)))}`,
    `scripts and styles loaded ${ms(lastAssets)}`,
    `first API request starts ${ms(firstApi)} (+${ms(firstApi - lastAssets)} evaluation) and ends ${ms(firstApiEnd)}`,
    `last API request starts ${ms(lastApiStart)}, last answer ${ms(lastApiEnd)}`,
    `start field and timer ${ms(median(loads.map((l) => l.usable)))}`,
    `interactive ${ms(interactive)} (+${ms(interactive - lastApiEnd)} render)`,
  ].join('; ');
}

async function main(): Promise<void> {
  const webRoot = WEB_ROOT ?? join(repoRoot(), 'dist', 'web');
  const scripts = firstPageScripts(webRoot);
  const gzip = scripts.reduce((sum, s) => sum + s.gzip, 0);
  console.log('first page JavaScript (gzip -9):');
  for (const s of scripts) console.log(`  ${s.file}  ${kb(s.raw)} raw, ${kb(s.gzip)} gzip`);
  console.log(`  total ${kb(gzip)} gzip (budget ${kb(JS_BUDGET_BYTES)}): ${gzip <= JS_BUDGET_BYTES ? 'within' : 'OVER'}`);

  await globalSetup();
  const processes: AppProcess[] = [];
  let floor: ChildProcess | undefined;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const port = await freePort();
    const env = { LOG_LEVEL: 'warn', PUBLIC_URL: `http://127.0.0.1:${port}` };
    step('starting identity, sessions, ingestion, correlation and a gateway');
    // A busy machine takes minutes to start four apps that migrate their schemas: each may take three.
    const starts = await Promise.allSettled(
      ['identity', 'sessions', 'ingestion', 'correlation'].map((app) => startAppProcess(app, env, 180_000)),
    );
    for (const s of starts) if (s.status === 'fulfilled') processes.push(s.value);
    for (const s of starts) if (s.status === 'rejected') throw s.reason;
    const gateway = await startAppProcess('gateway', { ...env, HTTP_PORT: String(port), ...(WEB_ROOT ? { WEB_ROOT } : {}) }, 180_000);
    processes.push(gateway);
    step('signing a member in');
    const [ownerToken] = await createLoadMembers(1, `bench-web-${Date.now()}`, 'owner');
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
    const invite = await send<{ data: { accept_url: string } }>('/invites', ownerToken, { email });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(INTERACTIVE_OBSERVER);
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
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

    // The load's members (bench:ingest's), each with a running session so correlation links every event.
    step(`creating the load's ${LOAD.members} members`);
    const tokens = await createLoadMembers(LOAD.members, `bench-web-load-${Date.now()}`);
    await startTimerSessions(gateway.url, tokens);
    step('recording the answers for the floor');

    // The gateway's answers to a load of Today, recorded for the floor server to replay.
    const answers = new Map<string, Promise<Answer>>();
    const record = (response: Response): void => {
      const url = new URL(response.url());
      if (!url.pathname.startsWith('/v1/') || url.origin !== gateway.url) return;
      const key = answerKey(response.request().method(), url);
      answers.set(
        key,
        response.body().then((body) => ({
          key,
          status: response.status(),
          type: response.headers()['content-type'] ?? 'application/json',
          body: body.toString('base64'),
        })),
      );
    };
    page.on('response', record);
    await measure(page, gateway.url);
    page.off('response', record);
    const started = await startFloor(webRoot, await Promise.all(answers.values()));
    floor = started.child;
    // Every origin loads once before the measured loads (the browser's own start-up is not measured).
    await measure(page, started.url);
    const targets = [
      { label: 'stack', url: gateway.url },
      { label: 'floor', url: started.url },
    ];

    step(`ingest load on, ${WARMUP_SECONDS} s before the first measured load`);
    const cdp = await context.newCDPSession(page);
    const sampler = new CpuSampler(new Map(processes.map((p) => [p.child.pid ?? -1, p.app])), process.env.DATABASE_URL);
    const loadAvgs: string[] = [load()];
    const cpuWindow = await sampler.start();
    const ingest = driveIngest(gateway.url, tokens, LOAD.connections, 3600);
    const loadStarted = performance.now();
    await new Promise((r) => setTimeout(r, WARMUP_SECONDS * 1000));
    const cold = targets.map(() => [] as Load[]);
    const warm = targets.map(() => [] as Load[]);
    // Alternately each target, so all see the same machine.
    for (let i = 0; i < RUNS; i++)
      for (const [t, target] of targets.entries()) {
        await cdp.send('Network.clearBrowserCache');
        cold[t].push(await measure(page, target.url));
      }
    loadAvgs.push(load());
    for (let i = 0; i < RUNS; i++) for (const [t, target] of targets.entries()) warm[t].push(await measure(page, target.url));
    ingest.stop();
    const loadResult = await ingest.done;
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const cpu = await cpuWindow.end();
    loadAvgs.push(load());
    const { ok, errors, eventsPerSecond } = loadSummary(loadResult, loadSeconds);

    console.log(
      `\nbench:web (${cpus().length} cores, node ${process.version}; load average at start / after the cold loads / at the end: ${loadAvgs.join(' / ')})`,
    );
    console.log(
      `ingest load during the measurement (${LOAD.connections} connections, ${LOAD.members} members, batches of ${BATCH}, ${loadSeconds.toFixed(1)} s): ` +
        `${eventsPerSecond.toFixed(0)} accepted events/s (${ok} batches of 202; ${errors} errors: non-2xx ${loadResult.non2xx} ${JSON.stringify(loadResult.statusCodeStats)}, ` +
        `errors ${loadResult.errors}, timeouts ${loadResult.timeouts}), batch p50 ${loadResult.latency.p50} ms, p99 ${loadResult.latency.p99} ms`,
    );
    console.log(`Today interactive after navigation (${RUNS} loads each, ms from the start of navigation):`);
    for (const [t, target] of targets.entries()) console.log(`  ${summary(`${target.label}, cold cache`, cold[t])}`);
    for (const [t, target] of targets.entries()) console.log(`  ${summary(`${target.label}, warm cache`, warm[t])}`);
    const worstCold = Math.max(...cold[0].map((l) => l.interactive));
    const worstWarm = Math.max(...warm[0].map((l) => l.interactive));
    console.log(
      `  budget ${INTERACTIVE_BUDGET_MS} ms: cold ${worstCold <= INTERACTIVE_BUDGET_MS ? 'within' : 'OVER'}, warm ${worstWarm <= INTERACTIVE_BUDGET_MS ? 'within' : 'OVER'} (worst load)`,
    );
    console.log('where the time goes, median of the cold loads (ms from the start of navigation):');
    for (const [t, target] of targets.entries()) console.log(`  ${target.label}: ${phases(cold[t])}`);
    for (const [t, target] of targets.entries()) {
      console.log(`each cold load, ${target.label}:`);
      for (const l of cold[t]) console.log(`  ${waterfall(l)}`);
    }
    console.log(
      `cpu over the load's ${cpu.seconds.toFixed(1)} s (the ingest load and the ${RUNS * 2 * (targets.length - 1)} page loads of the stack):`,
    );
    for (const line of formatCpu(cpu, ok, 'batch')) console.log(line);
  } finally {
    floor?.kill('SIGTERM');
    await browser.close();
    await Promise.all(processes.map((p) => p.stop()));
    await globalTeardown();
  }
}

if (process.argv.includes('--floor-server')) floorServer();
else
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
