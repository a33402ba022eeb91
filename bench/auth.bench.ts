/**
 * Benchmark (not a test): what people signing in costs (D-39, D-40). Starts
 * identity and a gateway from dist/ on free ports (topics of their own), makes
 * an owner (D-14) who invites a member, and the member accepts with a password.
 * Then, each closed loop (one request at a time, so latency is the work and
 * not a queue):
 *
 * - sign-in: `POST /v1/auth/login` with the right password — argon2id at the
 *   configured cost (ARGON2_MEMORY_KIB, ARGON2_PASSES), a deliberate cost;
 * - refresh: `POST /v1/auth/refresh` with the cookie, rotating it each time;
 *
 * - `GET /v1/me` `--requests` times with an API token of the member, then
 *   with the member's session JWT (each warmed first): the gateway's CPU per
 *   request for each credential (the JWT must cost no more).
 *
 * Figures: latency percentiles, throughput and the CPU milliseconds per unit
 * of each process (bench/cpu-sampler.ts, from /proc). Raw ceilings beside them:
 * argon2id verifications at the same cost in this process (no HTTP, no Kafka),
 * and a bare node:http server that verifies the same ES256 JWT with
 * node:crypto against the published key and answers 200 (open loop at
 * `--rate` for `--seconds` after `--warmup`).
 *
 *   npm run bench:auth [-- --signins 30 --refreshes 200 --requests 300 --rate 50 --seconds 15 --warmup 3]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { cpus, hostname } from 'node:os';
import { argon2id, hash, verify } from 'argon2';
import { allTopics, passwordDigest } from '@worktrack/contracts';
import { AppConfig, createLogger, ensureTopics, KafkaClient, loadConfig } from '@worktrack/platform';
import { freePort, memberWithToken, startAppProcess, type AppProcess } from '@worktrack/testing';
import { CpuSampler, formatCpu, type CpuWindow } from './cpu-sampler';
import { openLoop } from './open-loop';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SIGNINS = arg('signins', 30);
const REFRESHES = arg('refreshes', 200);
const REQUESTS = arg('requests', 300);
const RATE = arg('rate', 50);
const SECONDS = arg('seconds', 15);
const WARMUP = arg('warmup', 3);
/** Both apps' default PUBLIC_URL: the refresh route's required Origin (D-40). */
const ORIGIN = 'http://localhost:3000';
const ARGON2_MEMORY_KIB = Number(process.env.ARGON2_MEMORY_KIB ?? 19_456);
const ARGON2_PASSES = Number(process.env.ARGON2_PASSES ?? 7);
const agent = new Agent({ keepAlive: true, maxSockets: 2048 });

interface Answer {
  status: number;
  body: string;
  cookies: string[];
}

function send(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        agent,
        timeout: 30_000,
        headers: {
          ...headers,
          // An empty POST says so with a zero length, as browsers send it (not as a chunked body).
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
            : method === 'POST'
              ? { 'content-length': '0' }
              : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const setCookie = res.headers['set-cookie'] ?? [];
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), cookies: setCookie });
        });
        res.on('error', () => resolve({ status: 0, body: '', cookies: [] }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: '', cookies: [] }));
    req.end(payload);
  });
}

const refreshOf = (a: Answer): string => {
  const line = a.cookies.find((c) => c.startsWith('wt_refresh='));
  if (!line) throw new Error(`no refresh cookie (status ${a.status}): ${a.body.slice(0, 200)}`);
  return line.split(';')[0];
};

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

interface Run {
  label: string;
  ms: number[];
  rps: number;
  statuses: Map<number, number>;
  cpu: CpuWindow;
}

/** `n` requests one after another (closed loop, concurrency 1). */
async function closedLoop(label: string, n: number, sampler: CpuSampler, one: () => Promise<number>): Promise<Run> {
  const ms: number[] = [];
  const statuses = new Map<number, number>();
  const window = await sampler.start();
  const from = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const status = await one();
    ms.push(performance.now() - t);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const seconds = (performance.now() - from) / 1000;
  const cpu = await window.end();
  ms.sort((a, b) => a - b);
  return { label, ms, rps: n / seconds, statuses, cpu };
}

/** The JWT ceiling: a bare HTTP server that verifies an ES256 JWT against one public JWK with node:crypto. */
const CEILING_SERVER = `
const http = require('node:http');
const crypto = require('node:crypto');
const key = crypto.createPublicKey({ key: JSON.parse(process.argv[2]), format: 'jwk' });
const body = JSON.stringify({ data: { ok: true } });
const server = http.createServer((req, res) => {
  const m = /^Bearer\\s+([\\w-]+)\\.([\\w-]+)\\.([\\w-]+)$/.exec(req.headers.authorization || '');
  let ok = false;
  if (m) {
    ok = crypto.verify('sha256', Buffer.from(m[1] + '.' + m[2]), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(m[3], 'base64url'));
    if (ok) ok = JSON.parse(Buffer.from(m[2], 'base64url').toString('utf8')).exp * 1000 > Date.now();
  }
  res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.argv[1]), '127.0.0.1', () => process.stdout.write('listening\\n'));
`;

async function main(): Promise<void> {
  const apps: AppProcess[] = [];
  const env = { KAFKA_TOPIC_PREFIX: `bench-auth-${randomUUID().slice(0, 8)}.`, LOG_LEVEL: 'warn' };
  const config = loadConfig(AppConfig, { ...process.env, ...env });
  const kafka = new KafkaClient('bench-auth', config, createLogger('bench-auth', 'warn', 'bench'));
  try {
    await ensureTopics(await kafka.admin(), allTopics(), env.KAFKA_TOPIC_PREFIX);
    const identity = await startAppProcess('identity', env, 120_000);
    apps.push(identity);
    // Sign-ins come from one address: the per-address limits must not count them.
    const gateway = await startAppProcess('gateway', { ...env, RATE_LIMIT_PER_MINUTE: '1000000' }, 120_000);
    apps.push(gateway);
    const run = randomUUID().slice(0, 6);
    const owner = memberWithToken({ workspace: `bench-auth-${run}`, email: `owner-${run}@example.com` }, env);
    const email = `ada-${run}@example.com`;
    const password = `bench password ${run}`;
    const invited = await send(`${gateway.url}/v1/invites`, 'POST', { authorization: `Bearer ${owner.token}` }, { email });
    if (invited.status !== 201) throw new Error(`invite: ${invited.status} ${invited.body}`);
    const link = new URL((JSON.parse(invited.body) as { data: { accept_url: string } }).data.accept_url).searchParams.get('token') ?? '';
    const accepted = await send(`${gateway.url}/v1/auth/accept-invite`, 'POST', {}, { token: link, password });
    if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${accepted.body}`);
    const memberJwt = (JSON.parse(accepted.body) as { data: { access_token: string } }).data.access_token;
    const apiToken = await send(
      `${gateway.url}/v1/tokens`,
      'POST',
      { authorization: `Bearer ${memberJwt}` },
      { name: 'bench', scope: 'full' },
    );
    const token = (JSON.parse(apiToken.body) as { data: { token: string } }).data.token;
    if (!token) throw new Error(`token: ${apiToken.status} ${apiToken.body}`);

    const sampler = new CpuSampler(new Map(apps.map((p) => [p.child.pid ?? -1, p.app])));
    console.log(`argon2id at ${ARGON2_MEMORY_KIB} KiB × ${ARGON2_PASSES} passes; ${SIGNINS} sign-ins, ${REFRESHES} refreshes`);
    const signIn = await closedLoop('sign-in', SIGNINS, sampler, async () => {
      const a = await send(`${gateway.url}/v1/auth/login`, 'POST', {}, { email, password });
      return a.status;
    });
    let cookie = refreshOf(await send(`${gateway.url}/v1/auth/login`, 'POST', {}, { email, password }));
    let jwt = '';
    const refresh = await closedLoop('refresh', REFRESHES, sampler, async () => {
      const a = await send(`${gateway.url}/v1/auth/refresh`, 'POST', { cookie, origin: ORIGIN });
      if (a.status === 200) {
        cookie = refreshOf(a);
        jwt = (JSON.parse(a.body) as { data: { access_token: string } }).data.access_token;
      }
      return a.status;
    });

    // Closed loops, each credential warmed first, then measured in turn: on a busy machine an open loop only measures the queue.
    console.log(`GET /v1/me ${REQUESTS} times with each credential, one at a time`);
    const me = (credential: string) => async () =>
      (await send(`${gateway.url}/v1/me`, 'GET', { authorization: `Bearer ${credential}` })).status;
    await closedLoop('warm (token)', 50, sampler, me(token));
    await closedLoop('warm (JWT)', 50, sampler, me(jwt));
    const withToken = await closedLoop('me (token)', REQUESTS, sampler, me(token));
    const withJwt = await closedLoop('me (JWT)', REQUESTS, sampler, me(jwt));

    // Ceilings: argon2id alone (this process), and a bare JWT check over HTTP.
    const stored = await hash(passwordDigest(password), {
      type: argon2id,
      memoryCost: ARGON2_MEMORY_KIB,
      timeCost: ARGON2_PASSES,
      parallelism: 1,
    });
    const argonMs: number[] = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < SIGNINS; i++) {
      const t = performance.now();
      await verify(stored, passwordDigest(password));
      argonMs.push(performance.now() - t);
    }
    const argonCpu = process.cpuUsage(cpu0);
    argonMs.sort((a, b) => a - b);
    const jwks = JSON.parse((await send(`${gateway.url}/.well-known/jwks.json`, 'GET', {})).body) as { keys: Array<{ kid: string }> };
    const kid = (JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString('utf8')) as { kid: string }).kid;
    const port = await freePort();
    const ceilingProcess = spawn(
      process.execPath,
      ['-e', CEILING_SERVER, String(port), JSON.stringify(jwks.keys.find((k) => k.kid === kid))],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((resolve) => ceilingProcess.stdout.once('data', () => resolve()));
    const ceiling: Run = {
      label: 'ceiling (JWT)',
      ...(await openLoop(
        { rate: RATE, seconds: SECONDS, warmup: WARMUP, sampler: new CpuSampler(new Map([[ceilingProcess.pid ?? -1, 'ceiling']])) },
        () => send(`http://127.0.0.1:${port}/v1/me`, 'GET', { authorization: `Bearer ${jwt}` }).then((a) => a.status),
      )),
    };
    ceilingProcess.kill();

    const line = (r: Run): string =>
      `  ${r.label.padEnd(14)} n=${r.ms.length}  ${r.rps.toFixed(1)} req/s  p50 ${percentile(r.ms, 50).toFixed(1)} ms  p95 ${percentile(r.ms, 95).toFixed(1)} ms  p99 ${percentile(r.ms, 99).toFixed(1)} ms  answers ${[...r.statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`;
    console.log(`\npeople signing in on ${hostname()} (${cpus().length} cores), ${new Date().toISOString()}`);
    for (const r of [signIn, refresh, withToken, withJwt]) {
      console.log(line(r));
      for (const l of formatCpu(r.cpu, r.ms.length, r.label.startsWith('me') ? 'request' : r.label)) console.log(`    ${l}`);
    }
    console.log(
      `  ceiling argon2id verify (in process, no HTTP): p50 ${percentile(argonMs, 50).toFixed(1)} ms  p95 ${percentile(argonMs, 95).toFixed(1)} ms  cpu ${((argonCpu.user + argonCpu.system) / 1000 / SIGNINS).toFixed(1)} ms per verify`,
    );
    console.log(line(ceiling));
    for (const l of formatCpu(ceiling.cpu, ceiling.ms.length, 'request')) console.log(`    ${l}`);
    const gw = (r: Run): number => (r.cpu.byGroup.gateway ?? 0) / r.ms.length;
    console.log(
      `  gateway CPU per request: JWT ${gw(withJwt).toFixed(3)} ms, API token ${gw(withToken).toFixed(3)} ms (${gw(withJwt) <= gw(withToken) ? 'JWT no higher' : 'JWT HIGHER'})`,
    );
  } finally {
    await Promise.all(apps.map((p) => p.stop()));
    await kafka.close();
    agent.destroy();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
