/**
 * Crash points for fault tests: when WT_FAILPOINTS (comma-separated) names
 * this point, the process kills itself with SIGKILL here — no cleanup, like a
 * crashed pod. Inert unless that variable is set, and always inert when
 * NODE_ENV=production (ingestion README).
 */
export function failpoint(name: string): void {
  const points = process.env.WT_FAILPOINTS;
  if (!points || process.env.NODE_ENV === 'production') return;
  if (points.split(',').includes(name)) process.kill(process.pid, 'SIGKILL');
}
