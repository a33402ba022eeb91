// CPU profile of an app process, for the benchmarks (issue 17). Node refuses
// --cpu-prof in NODE_OPTIONS, and the benches start the apps themselves, so:
//   CPU_PROFILE_DIR=/tmp/prof NODE_OPTIONS="--require ./bench/cpu-profile.cjs" npm run bench:ingest
// profiles every app process started from dist/apps/<app>/ (not the bench
// itself) with the inspector's sampling profiler and writes
// <dir>/<app>-<pid>.cpuprofile when the process exits (SIGTERM drains, then
// exits). Summarise with `node bench/profile-summary.mjs <dir>/*.cpuprofile`.
'use strict';
const process = require('node:process');
const { Session } = require('node:inspector');
const { writeFileSync, mkdirSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.CPU_PROFILE_DIR;
const argv1 = process.argv[1] ?? '';
// dist/apps/<app>/main.js, or the services' one-process host (what `npm start` runs).
const app = /dist\/apps\/([^/]+)\//.exec(argv1)?.[1] ?? (/dist\/scripts\/services-host\.js$/.test(argv1) ? 'services' : undefined);
if (dir && app) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env.CPU_PROFILE_INTERVAL_US ?? 1000) });
  session.post('Profiler.start');
  process.once('exit', () => {
    // An in-process inspector session answers synchronously.
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${app}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
