import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ExpandJob, ExpandJobResult } from './ics-job';
import { IcsParseError } from './ics-feed';

/** A feed taking longer than this to parse and expand is refused (the worker is replaced). */
export const EXPAND_TIMEOUT_MS = 60_000;

/**
 * The worker's code: it loads `ics-job` (the built `.js`; under the tests,
 * the `.ts` source compiled on load with swc) and runs the jobs it is sent,
 * one at a time.
 */
const BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.modulePath.endsWith('.ts')) {
  const { readFileSync } = require('node:fs');
  const swc = require('@swc/core');
  require.extensions['.ts'] = (module, filename) => {
    const { code } = swc.transformSync(readFileSync(filename, 'utf8'), {
      filename,
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
}
const { runExpandJob } = require(workerData.modulePath);
parentPort.on('message', ({ id, job }) => {
  let reply;
  try {
    reply = { id, result: runExpandJob(job) };
  } catch (error) {
    reply = { id, crash: error instanceof Error ? error.message : String(error) };
  }
  parentPort.postMessage(reply);
});
`;

interface Pending {
  resolve: (result: ExpandJobResult) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Parses and expands calendar feeds on a worker thread, so a large
 * feed never holds the event loop that answers webhooks (Slack gives 3 s).
 * One worker per process, created on first use and replaced when it crashes
 * or a job overruns EXPAND_TIMEOUT_MS; its heap is bounded.
 */
@Injectable()
export class IcsWorker implements OnModuleDestroy {
  private worker?: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  /** Resolves with the job's result; rejects with IcsParseError for a feed too expensive or a worker crash. */
  expand(job: ExpandJob): Promise<ExpandJobResult> {
    const worker = this.current();
    const id = ++this.nextId;
    return new Promise<ExpandJobResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new IcsParseError(
            `parsing and expanding the feed took longer than ${EXPAND_TIMEOUT_MS / 1000} s; refusing a feed this expensive`,
          ),
        );
        this.replace();
      }, EXPAND_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, job });
    });
  }

  async onModuleDestroy(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('the calendar worker is shutting down'));
    await worker?.terminate();
  }

  private current(): Worker {
    if (this.worker) return this.worker;
    const extension = __filename.endsWith('.ts') ? '.ts' : '.js';
    const modulePath = join(__dirname, `ics-job${extension}`);
    if (!existsSync(modulePath)) throw new Error(`${modulePath} is missing`);
    const worker = new Worker(BOOTSTRAP, { eval: true, workerData: { modulePath }, resourceLimits: { maxOldGenerationSizeMb: 512 } });
    worker.unref();
    worker.on('message', (message: { id: number; result?: ExpandJobResult; crash?: string }) => {
      const entry = this.pending.get(message.id);
      if (!entry) return;
      this.pending.delete(message.id);
      clearTimeout(entry.timer);
      if (message.result) entry.resolve(message.result);
      // A reader bug on some input: the feed is reported unprocessable (the poll is not retried in a loop);
      // the message stays out of the connector's error (it may quote the feed).
      else entry.reject(new IcsParseError('the feed could not be processed (an unexpected error in the calendar reader)'));
    });
    worker.on('error', () => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new IcsParseError('the feed could not be processed (the calendar reader failed, e.g. out of memory)'));
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new IcsParseError('the feed could not be processed (the worker stopped)'));
    });
    this.worker = worker;
    return worker;
  }

  private replace(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new IcsParseError('the feed could not be processed (the worker was replaced)'));
    void worker?.terminate();
  }

  private failAll(error: Error): void {
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(error);
      this.pending.delete(id);
    }
  }
}
