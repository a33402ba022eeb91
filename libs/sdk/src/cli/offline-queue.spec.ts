import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  closeSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultQueueDir, eventKey, LockFile, OfflineQueue, parseQueue, QueueFullError, type QueueEntry } from './offline-queue';

const TARGET = 'http://api.example wt_abcdefgh';
const entry = (n: number, target = TARGET): QueueEntry => ({
  v: 1,
  target,
  queued_at: '2026-05-01T10:00:00.000Z',
  event: { event_type: 'deploy', external_id: `e-${n}`, payload: { n } },
});

describe('offline queue file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wt-queue-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps appended events in order, one JSON line each, readable by a later process', () => {
    const queue = new OfflineQueue(dir);
    queue.append([entry(1), entry(2)]);
    queue.append([entry(3)]);
    const text = readFileSync(join(dir, 'queue.ndjson'), 'utf8');
    expect(text.split('\n')).toHaveLength(4); // three lines and the final newline
    expect(new OfflineQueue(dir).read().entries.map((e) => e.event.external_id)).toEqual(['e-1', 'e-2', 'e-3']);
  });

  it('ignores a last line cut short by a crash, and the next append does not merge with it', () => {
    const queue = new OfflineQueue(dir);
    queue.append([entry(1)]);
    appendFileSync(join(dir, 'queue.ndjson'), JSON.stringify(entry(2)).slice(0, 40)); // a torn append
    expect(queue.read()).toMatchObject({ tornTail: true, unreadable: [] });
    expect(queue.read().entries.map((e) => e.event.external_id)).toEqual(['e-1']);

    queue.append([entry(3)]);
    const after = queue.read();
    expect(after.entries.map((e) => e.event.external_id)).toEqual(['e-1', 'e-3']);
    expect(after.tornTail).toBe(false);
    expect(after.unreadable).toHaveLength(1); // the torn fragment, now a line of its own

    // The next rewrite sets the fragment aside in rejected.ndjson rather than dropping it unseen.
    queue.remove(new Set([eventKey(TARGET, entry(1).event)]));
    expect(queue.read()).toEqual({ entries: [entry(3)], unreadable: [], tornTail: false });
    const rejected = readFileSync(join(dir, 'rejected.ndjson'), 'utf8').trim().split('\n');
    expect(rejected).toHaveLength(1);
    expect(JSON.parse(rejected[0])).toMatchObject({ reason: 'unreadable line in the queue' });
  });

  it('parses only complete lines', () => {
    expect(parseQueue('')).toEqual({ entries: [], unreadable: [], tornTail: false });
    expect(parseQueue(`${JSON.stringify(entry(1))}\n{"v":1`)).toMatchObject({ entries: [entry(1)], tornTail: true });
    expect(parseQueue(`{"v":2}\n`)).toMatchObject({ entries: [], unreadable: ['{"v":2}'] });
  });

  it('is bounded by events: refuses the whole append beyond the limit and keeps what it had', () => {
    const queue = new OfflineQueue(dir, { maxEvents: 3, maxBytes: 1 << 20 });
    queue.append([entry(1), entry(2)]);
    expect(() => queue.append([entry(3), entry(4)])).toThrow(QueueFullError);
    expect(queue.read().entries).toHaveLength(2);
    queue.append([entry(3)]);
    expect(() => queue.append([entry(4)])).toThrow(/offline queue full: 3 events queued/);
    expect(queue.read().entries).toHaveLength(3);
  });

  it('is bounded by bytes', () => {
    const one = Buffer.byteLength(`${JSON.stringify(entry(1))}\n`);
    const queue = new OfflineQueue(dir, { maxEvents: 1000, maxBytes: one * 2 + 1 });
    queue.append([entry(1), entry(2)]);
    expect(() => queue.append([entry(3)])).toThrow(QueueFullError);
    expect(queue.read().entries).toHaveLength(2);
  });

  it('removes sent events by rewriting atomically: a new file renamed over the old one, no temp file left', () => {
    const queue = new OfflineQueue(dir);
    queue.append([entry(1), entry(2), entry(3)]);
    const file = join(dir, 'queue.ndjson');
    const before = readFileSync(file, 'utf8');
    const oldFd = openSync(file, 'r'); // a reader of the old file keeps seeing it whole: nothing was truncated in place
    try {
      queue.remove(new Set([eventKey(TARGET, entry(1).event), eventKey(TARGET, entry(3).event)]));
      const buffer = Buffer.alloc(Buffer.byteLength(before));
      readSync(oldFd, buffer, 0, buffer.length, 0);
      expect(buffer.toString('utf8')).toBe(before);
    } finally {
      closeSync(oldFd);
    }
    expect(queue.read().entries.map((e) => e.event.external_id)).toEqual(['e-2']);
    expect(readdirSync(dir).sort()).toEqual(['queue.ndjson']);
    queue.remove(new Set([eventKey(TARGET, entry(2).event)]));
    expect(existsSync(file)).toBe(false);
  });

  it('keys events by target, source and external id (D-15): other targets and sources stay', () => {
    const queue = new OfflineQueue(dir);
    const ci = { ...entry(1), event: { ...entry(1).event, source_type: 'ci' } };
    queue.append([entry(1), ci, entry(1, 'http://other wt_zzzzzzzz')]);
    queue.remove(new Set([eventKey(TARGET, entry(1).event)]));
    expect(queue.read().entries).toEqual([ci, entry(1, 'http://other wt_zzzzzzzz')]);
    expect(eventKey(TARGET, { event_type: 'x', external_id: 'a' })).toBe(
      eventKey(TARGET, { event_type: 'y', source_type: 'custom', external_id: 'a' }),
    );
  });

  it('lives under WORKTRACK_QUEUE_DIR, else XDG_STATE_HOME/worktrack, else ~/.local/state/worktrack', () => {
    expect(defaultQueueDir({ WORKTRACK_QUEUE_DIR: '/q', XDG_STATE_HOME: '/s' })).toBe('/q');
    expect(defaultQueueDir({ XDG_STATE_HOME: '/s' })).toBe('/s/worktrack');
    expect(defaultQueueDir({})).toMatch(/\.local\/state\/worktrack$/);
  });
});

describe('lock file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wt-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is exclusive while its owner lives', () => {
    const a = new LockFile(join(dir, 'x.lock'));
    const b = new LockFile(join(dir, 'x.lock'));
    expect(a.tryAcquire()).toBe(true);
    expect(b.tryAcquire()).toBe(false);
    expect(b.ownerPid()).toBe(process.pid);
    a.release();
    expect(b.tryAcquire()).toBe(true);
    b.release();
    expect(existsSync(join(dir, 'x.lock'))).toBe(false);
  });

  it('is held by a live process of another pid', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, 'x.lock'), JSON.stringify({ pid: child.pid, at: new Date().toISOString() }));
      expect(new LockFile(join(dir, 'x.lock')).tryAcquire()).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('is taken over when its owner died without releasing it (kill -9)', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const pid = child.pid!;
    writeFileSync(join(dir, 'x.lock'), JSON.stringify({ pid, at: new Date().toISOString() }));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const lock = new LockFile(join(dir, 'x.lock'));
    expect(lock.tryAcquire()).toBe(true);
    expect(lock.ownerPid()).toBe(process.pid);
    expect(readdirSync(dir)).toEqual(['x.lock']); // the stale one moved aside and removed
    lock.release();
  });

  it('waits for a holder and gives up with a clear error', () => {
    const a = new LockFile(join(dir, 'x.lock'));
    a.tryAcquire();
    expect(() => new LockFile(join(dir, 'x.lock')).acquire(100)).toThrow(/held by pid \d+/);
    a.release();
  });
});
