import { spawn } from 'node:child_process';
import { collectOutput, runToEnd } from './child-output';

describe('a child process run to its end', () => {
  it('holds everything it wrote, the last lines included, and its exit code', async () => {
    // Large last writes on both pipes just before exiting: 'exit' may come before they are read; 'close' does not.
    const script = `process.stdout.write('a'.repeat(300000) + 'END-OUT'); process.stderr.write('b'.repeat(300000) + 'END-ERR'); process.exitCode = 3;`;
    const run = await runToEnd(spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(run.code).toBe(3);
    expect(run.stdout).toHaveLength(300_007);
    expect(run.stdout.endsWith('END-OUT')).toBe(true);
    expect(run.stderr.endsWith('END-ERR')).toBe(true);
  });

  it('writes stdin and closes it; output() holds both streams as they came', async () => {
    const script = `let s = ''; process.stdin.on('data', (d) => (s += d)); process.stdin.on('end', () => { console.log('got ' + s); console.error('done'); });`;
    const out = collectOutput(spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] }), 'hello');
    expect(await out.closed).toBe(0);
    expect(out.stdout()).toBe('got hello\n');
    expect(out.stderr()).toBe('done\n');
    expect(out.output()).toContain('got hello\n');
    expect(out.output()).toContain('done\n');
  });

  it('answers null for a child ended by a signal', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = collectOutput(child);
    child.kill('SIGKILL');
    expect(await out.closed).toBeNull();
  });
});
