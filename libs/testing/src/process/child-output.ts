import type { ChildProcess } from 'node:child_process';

/** A child process's output as it arrives, and its end. */
export interface ChildOutput {
  /** Standard output so far. */
  stdout: () => string;
  /** Standard error so far. */
  stderr: () => string;
  /** Both, in the order they arrived. */
  output: () => string;
  /**
   * Resolves on the child's 'close', which comes after its pipes end (unlike 'exit'): the texts above then hold the
   * last lines it wrote. The exit code, or null when a signal ended it.
   */
  closed: Promise<number | null>;
}

/** The result of a child run to its end. */
export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Collects `child`'s standard output and error (spawned with pipes for them) from now on; `stdin`, when given, is
 * written to its standard input, which is then closed.
 */
export function collectOutput(child: ChildProcess, stdin?: string): ChildOutput {
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    const text = d.toString('utf8');
    stdout += text;
    output += text;
  });
  child.stderr?.on('data', (d: Buffer) => {
    const text = d.toString('utf8');
    stderr += text;
    output += text;
  });
  if (stdin !== undefined) child.stdin?.end(stdin);
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { stdout: () => stdout, stderr: () => stderr, output: () => output, closed };
}

/** Runs `child` to its end: its exit code and everything it wrote. */
export async function runToEnd(child: ChildProcess, stdin?: string): Promise<ChildRun> {
  const out = collectOutput(child, stdin);
  const code = await out.closed;
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}
