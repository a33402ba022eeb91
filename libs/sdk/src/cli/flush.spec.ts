import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiFailure, type ActivityEventInput, type EventsAccepted, type WorktrackApi } from './api-port';
import { flushQueue } from './flush';
import { OfflineQueue, type QueueEntry } from './offline-queue';

const TARGET = 'http://api.example wt_abcdefgh';
const entry = (n: number, target = TARGET): QueueEntry => ({
  v: 1,
  target,
  queued_at: '2026-05-01T10:00:00.000Z',
  event: { event_type: 'job.run', external_id: `e-${n}` },
});

/** An API that stores events deduplicated by external id (D-15) and fails the calls it is told to. */
class ScriptedApi {
  readonly stored = new Map<string, ActivityEventInput>();
  calls = 0;
  constructor(private readonly failures: Array<ApiFailure | ((events: ActivityEventInput[]) => ApiFailure | undefined) | undefined> = []) {}

  sendEvents(events: ActivityEventInput[]): Promise<EventsAccepted> {
    const scripted = this.failures[this.calls++];
    const failure = typeof scripted === 'function' ? scripted(events) : scripted;
    if (failure) return Promise.reject(failure);
    let deduplicated = 0;
    for (const e of events) {
      if (this.stored.has(e.external_id!)) deduplicated++;
      else this.stored.set(e.external_id!, e);
    }
    return Promise.resolve({ accepted: events.length - deduplicated, deduplicated, event_ids: events.map(() => 'id') });
  }

  asApi(): WorktrackApi {
    const unused = () => Promise.reject(new Error('not used by flush'));
    return {
      sendEvents: (events) => this.sendEvents(events),
      me: unused,
      startSession: unused,
      listSessions: unused,
      sessionAction: unused,
      assignPlate: unused,
      plate: unused,
      reportUsage: unused,
      listUsage: unused,
      report: unused,
      reportCsv: unused,
    };
  }
}

describe('flushQueue', () => {
  let dir: string;
  let queue: OfflineQueue;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wt-flush-'));
    queue = new OfflineQueue(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sends batches of 100 with the stored ids and empties the queue', async () => {
    queue.append(Array.from({ length: 250 }, (_, i) => entry(i)));
    const api = new ScriptedApi();
    const batches: number[] = [];
    const result = await flushQueue(api.asApi(), queue, TARGET, { waitForLockMs: 0, onBatch: (sent) => batches.push(sent) });
    expect(result).toMatchObject({ sent: 250, deduplicated: 0, rejected: 0, remaining: 0, otherTargets: 0 });
    expect(batches).toEqual([100, 200, 250]);
    expect(api.calls).toBe(3);
    expect([...api.stored.keys()]).toEqual(Array.from({ length: 250 }, (_, i) => `e-${i}`));
    expect(queue.read().entries).toEqual([]);
  });

  it('stops when the API becomes unreachable, keeping exactly what was not answered', async () => {
    queue.append(Array.from({ length: 250 }, (_, i) => entry(i)));
    const api = new ScriptedApi([undefined, new ApiFailure('unreachable', 'no answer')]);
    const result = await flushQueue(api.asApi(), queue, TARGET, { waitForLockMs: 0 });
    expect(result).toMatchObject({ sent: 100, remaining: 150 });
    expect(result.stoppedBy?.kind).toBe('unreachable');
    expect(queue.read().entries.map((e) => e.event.external_id)).toEqual(Array.from({ length: 150 }, (_, i) => `e-${i + 100}`));
    expect(queue.flushLock.ownerPid()).toBeUndefined(); // released
  });

  it('keeps everything on an auth failure', async () => {
    queue.append([entry(1), entry(2)]);
    const result = await flushQueue(new ScriptedApi([new ApiFailure('auth', 'revoked', 401, 'UNAUTHENTICATED')]).asApi(), queue, TARGET, {
      waitForLockMs: 0,
    });
    expect(result).toMatchObject({ sent: 0, remaining: 2 });
    expect(queue.read().entries).toHaveLength(2);
  });

  it('moves the events a 400 names to rejected.ndjson and sends the others of the batch (D-17)', async () => {
    queue.append([entry(0), entry(1), entry(2)]);
    const refuse = new ApiFailure('rejected', 'invalid', 400, 'PAYLOAD_CONTAINS_SECRET', [
      { path: 'events[1].payload.key', issue: 'looks like a token' },
    ]);
    const api = new ScriptedApi([refuse]);
    const result = await flushQueue(api.asApi(), queue, TARGET, { waitForLockMs: 0 });
    expect(result).toMatchObject({ sent: 2, rejected: 1, remaining: 0 });
    expect([...api.stored.keys()]).toEqual(['e-0', 'e-2']);
    expect(queue.read().entries).toEqual([]);
    const rejected = readFileSync(join(dir, 'rejected.ndjson'), 'utf8').trim().split('\n');
    expect(rejected.map((l) => JSON.parse(l) as { code: string; entry: QueueEntry })).toEqual([
      expect.objectContaining({ code: 'PAYLOAD_CONTAINS_SECRET', entry: entry(1) }),
    ]);
  });

  it('counts a batch sent again after a crash as deduplicated (D-15) and leaves other targets alone', async () => {
    const other = entry(9, 'http://api.example wt_zzzzzzzz');
    queue.append([entry(1), entry(2), other]);
    const api = new ScriptedApi();
    await api.sendEvents([entry(1).event]); // sent by a flush that died before rewriting the queue
    const result = await flushQueue(api.asApi(), queue, TARGET, { waitForLockMs: 0 });
    expect(result).toMatchObject({ sent: 2, deduplicated: 1, remaining: 0, otherTargets: 1 });
    expect(api.stored.size).toBe(2);
    expect(queue.read().entries).toEqual([other]);
  });

  it('does not run while another flush holds the lock', async () => {
    queue.append([entry(1)]);
    expect(queue.flushLock.tryAcquire()).toBe(true);
    try {
      const result = await flushQueue(new ScriptedApi().asApi(), new OfflineQueue(dir), TARGET, { waitForLockMs: 100 });
      expect(result).toMatchObject({ busy: true, sent: 0, remaining: 1 });
    } finally {
      queue.flushLock.release();
    }
  });
});
