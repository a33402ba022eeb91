// Top self-time frames of .cpuprofile files, per file:
//   node bench/profile-summary.mjs [--top 15] [--skip-ms 8000] <file.cpuprofile>…
// --skip-ms leaves out the first N ms of each profile (start-up). Prints the
// share of sampled time by package (node_modules/<pkg>, our code, node
// internals, GC, idle) and the top functions by self time.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  return v;
};
const TOP = opt('top', 15);
const SKIP_MS = opt('skip-ms', 0);

const packageOf = (url, name) => {
  if (name === '(garbage collector)') return '(gc)';
  if (name === '(idle)' || name === '(program)') return name;
  if (!url) return '(native/internal)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:') || !url.includes('/')) return '(node)';
  const ours = /\/(apps\/[^/]+|libs\/[^/]+)\//.exec(url);
  return ours ? ours[1] : url;
};

for (const file of args) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let t = profile.startTime;
  const skipUntil = profile.startTime + SKIP_MS * 1000;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < skipUntil) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const fn = new Map();
  const pkg = new Map();
  let busy = 0;
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const name = callFrame.functionName || '(anonymous)';
    const p = packageOf(callFrame.url, name);
    pkg.set(p, (pkg.get(p) ?? 0) + us);
    if (name === '(idle)') continue;
    busy += us;
    const key = `${name} ${callFrame.url ? `${basename(callFrame.url)}:${callFrame.lineNumber + 1}` : ''} [${p}]`;
    fn.set(key, (fn.get(key) ?? 0) + us);
  }
  const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
  console.log(`\n${basename(file)}: ${(busy / 1000).toFixed(0)} ms busy (samples after ${SKIP_MS} ms)`);
  console.log('  by package (self):');
  for (const [p, us] of [...pkg]
    .filter(([p]) => p !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10))
    console.log(`    ${pct(us)}  ${p}`);
  console.log('  top functions (self):');
  for (const [k, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`    ${pct(us)}  ${k}`);
}
