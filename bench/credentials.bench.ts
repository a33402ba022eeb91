/**
 * Benchmark (not a test): what a flood of unknown API tokens costs the stack
 * (D-37). Starts identity and a gateway from dist/ on free ports (the gateway
 * trusts one proxy hop, so the bench can name each request's client
 * address), then sends `GET /v1/me` with a token no one was issued — a random
 * id and secret every time — open loop at `rate` requests a second, from
 * `addresses` client addresses in turn (1: one NAT address, past the
 * per-address limit at once; many: every request takes the whole refusal
 * path). Figures: throughput, latency, the answers by status, the identity
 * round trips the flood caused (identity's `identity.token.verify` commands
 * handled, from its /metrics), and the CPU milliseconds per request of each
 * process (bench/cpu-sampler.ts). At the end, a valid token never used before
 * is sent from a flooded address: it must be served. The raw ceiling beside
 * them: a bare node:http server that parses the bearer, looks the id up in a
 * Map and answers 401 in the D-1 envelope, flooded the same way.
 *
 *   npm run bench:credentials [-- --rate 200 --seconds 20 --warmup 5 --addresses 1000]
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { cpus, hostname } from 'node:os';
import { allTopics } from '@worktrack/contracts';
import { AppConfig, createLogger, ensureTopics, KafkaClient, loadConfig } from '@worktrack/platform';
import { freePort, memberWithToken, startAppProcess, type AppProcess } from '@worktrack/testing';
import { CpuSampler, formatCpu } from './cpu-sampler';
import { openLoop, type OpenLoopRun } from './open-loop';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RATE = arg('rate', 200);
const SECONDS = arg('seconds', 20);
const WARMUP = arg('warmup', 5);
const ADDRESSES = arg('addresses', 1000);
const agent = new Agent({ keepAlive: true, maxSockets: 2048 });

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE62 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const pick = (alphabet: string, n: number): string => Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
const unknownToken = (): string => `wt_${pick(BASE32, 8)}_${pick(BASE62, 43)}`;
const addressOf = (n: number): string => `198.18.${Math.floor((n % ADDRESSES) / 250)}.${((n % ADDRESSES) % 250) + 1}`;

function get(url: string, token: string, address: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: 'GET', agent, timeout: 30_000, headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** The counter's value summed over the label sets that hold every `labels` fragment. */
async function counter(metricsUrl: string, name: string, ...labels: string[]): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && labels.every((p) => l.includes(p)))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** An open loop of unknown tokens from many addresses at RATE (the first WARMUP seconds not measured). */
const flood = (url: string, sampler: CpuSampler): Promise<OpenLoopRun> =>
  openLoop({ rate: RATE, seconds: SECONDS, warmup: WARMUP, sampler }, (n) => get(url, unknownToken(), addressOf(n)));

/** The ceiling: a bare HTTP server that refuses an unknown id from a Map, in a process of its own. */
const CEILING_SERVER = `
const http = require('node:http');
const known = new Map();
for (let i = 0; i < 1000; i++) known.set('k' + String(i).padStart(7, '0'), 'x');
const body = JSON.stringify({ error: { code: 'UNAUTHENTICATED', message: 'Missing or invalid credential.' } });
const server = http.createServer((req, res) => {
  const m = /^Bearer\\s+wt_([a-z2-7]{8})_([0-9A-Za-z]{43})$/i.exec(req.headers.authorization || '');
  const status = m && known.has(m[1]) ? 200 : 401;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.argv[1]), '127.0.0.1', () => process.stdout.write('listening\\n'));
`;

async function main(): Promise<void> {
  const apps: AppProcess[] = [];
  // Topics of its own: the gateway's token registry reads only this run's tokens.
  const env = { KAFKA_TOPIC_PREFIX: `bench-cred-${randomUUID().slice(0, 8)}.`, LOG_LEVEL: 'warn' };
  const config = loadConfig(AppConfig, { ...process.env, ...env });
  const kafka = new KafkaClient('bench-credentials', config, createLogger('bench-credentials', 'warn', 'bench'));
  try {
    await ensureTopics(await kafka.admin(), allTopics(), env.KAFKA_TOPIC_PREFIX);
    const identity = await startAppProcess('identity', env, 120_000);
    apps.push(identity);
    const gateway = await startAppProcess('gateway', { ...env, TRUSTED_PROXY_HOPS: '1', UNAUTH_RATE_LIMIT_PER_MINUTE: '60' }, 120_000);
    apps.push(gateway);
    const member = memberWithToken(
      { workspace: `bench-cred-${randomUUID().slice(0, 6)}`, email: `cred-${randomUUID().slice(0, 6)}@example.com` },
      env,
    );
    const sampler = new CpuSampler(new Map(apps.map((p) => [p.child.pid ?? -1, p.app])));
    const verifies = (): Promise<number> =>
      counter(`${identity.url}/metrics`, 'worktrack_kafka_messages_total', 'type="identity.token.verify"');
    const before = await verifies();
    console.log(`flooding ${gateway.url}/v1/me with unknown tokens: ${RATE}/s for ${WARMUP}+${SECONDS} s from ${ADDRESSES} address(es)`);
    const stack = await flood(`${gateway.url}/v1/me`, sampler);
    const roundTrips = (await verifies()) - before;
    // A valid token never used before, from a flooded address, is served (D-37).
    const valid = await get(`${gateway.url}/v1/me`, member.token, addressOf(0));

    const port = await freePort();
    const ceilingProcess = spawn(process.execPath, ['-e', CEILING_SERVER, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => ceilingProcess.stdout.once('data', () => resolve()));
    const ceiling = await flood(`http://127.0.0.1:${port}/v1/me`, new CpuSampler(new Map([[ceilingProcess.pid ?? -1, 'ceiling']])));
    ceilingProcess.kill();

    const line = (label: string, f: OpenLoopRun): string =>
      `  ${label.padEnd(8)} n=${f.ms.length}  ${f.rps.toFixed(1)} req/s  p50 ${percentile(f.ms, 50).toFixed(1)} ms  p99 ${percentile(f.ms, 99).toFixed(1)} ms  answers ${[...f.statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`;
    console.log(`\nunknown-token flood on ${hostname()} (${cpus().length} cores), ${new Date().toISOString()}`);
    console.log(line('stack', stack));
    for (const l of formatCpu(stack.cpu, stack.ms.length, 'request')) console.log(`    ${l}`);
    console.log(
      `  identity round trips (identity.token.verify handled): ${roundTrips} for ${stack.ms.length + Math.round(RATE * WARMUP)} unknown tokens`,
    );
    console.log(`  a never-used valid token from a flooded address: ${valid}`);
    console.log(line('ceiling', ceiling));
    for (const l of formatCpu(ceiling.cpu, ceiling.ms.length, 'request')) console.log(`    ${l}`);
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
