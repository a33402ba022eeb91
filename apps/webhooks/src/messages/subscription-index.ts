import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { backoffMs, LOGGER, type AppLogger } from '@worktrack/platform';
import { WebhooksRepository, type EndpointsListener } from '../webhooks.repository';
import type { OutgoingMessage } from './source-events';

/** The safety net: the whole index is read again this often, whatever the notifications said. */
const FULL_RELOAD_MS = 60_000;

/**
 * A round trip starts no sooner than this after the previous one started,
 * and every batch that arrives before it starts shares it: under load one
 * round trip serves several batches. It delays only batches that would be
 * skipped (and what follows them on their partition) by at most this much.
 */
const FENCE_GATHER_MS = 10;

/**
 * What each workspace subscribes to (the event types of its enabled
 * endpoints), in memory, so that a batch of source events none of whose
 * workspaces subscribes to its type costs no statement (D-54).
 *
 * Kept right across replicas: the `endpoints_notify` trigger notifies the
 * workspace of every endpoint write that can change a subscription (any
 * replica, any path), and this replica LISTENs on a connection of its own.
 * A notified workspace counts as subscribed to everything until its row is
 * read again. The whole index is read after every (re)connect, once LISTEN
 * is in place, and every FULL_RELOAD_MS. Until the first full read on a
 * connection, or while it is down, every batch goes to the fan-out
 * statement (which joins the endpoints itself, so it is always exact).
 *
 * The guarantee (D-54, D-56: an endpoint created at T gets the changes
 * after T): a batch is skipped only after a round trip on the listening
 * connection that started after the batch arrived. Postgres hands a
 * listener every notification of a commit before that round trip ahead of
 * its answer, so when the batch is judged, the index knows every endpoint
 * write acknowledged before the batch arrived; a change made after an
 * endpoint's creation was acknowledged reaches this replica after it, so it
 * is never skipped. Batches naming a subscribed workspace and type go to the
 * statement at once, without the round trip; concurrent batches share one.
 */
@Injectable()
export class SubscriptionIndex implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: AppLogger;
  /** Workspace → the event types its enabled endpoints name. */
  private types = new Map<string, ReadonlySet<string>>();
  /** Workspaces notified and not read since: workspace → the notification's sequence number. */
  private readonly dirty = new Map<string, number>();
  private sequence = 0;
  private listener?: EndpointsListener;
  /** Bumped at every (re)connect: a round trip on an older connection proves nothing. */
  private epoch = 0;
  /** True once the index was read in full on the current listening connection. */
  private ready = false;
  private stopped = false;
  private failures = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private fullReloadTimer?: NodeJS.Timeout;
  private readonly toRead = new Set<string>();
  private reading?: Promise<void>;
  /** The round trip not started yet: batches arriving now share it. */
  private fenceWaiting?: Promise<void>;
  private fenceInFlight?: Promise<void>;
  private lastFence = 0;

  constructor(
    private readonly repo: WebhooksRepository,
    @Inject(LOGGER) logger: AppLogger,
  ) {
    this.logger = logger.child({ component: 'webhook-subscriptions' });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.connect();
    this.fullReloadTimer = setInterval(() => void this.readAll().catch((err: unknown) => this.readFailed(err)), FULL_RELOAD_MS);
    this.fullReloadTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.ready = false;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.fullReloadTimer);
    await this.listener?.close();
    this.listener = undefined;
    await this.reading?.catch(() => undefined);
  }

  /**
   * The messages that may have an endpoint: all of them when one already
   * matches (the statement decides), none when, after a round trip on the
   * listening connection, none does.
   */
  async wanted(messages: readonly OutgoingMessage[]): Promise<readonly OutgoingMessage[]> {
    if (messages.length === 0 || !this.ready || messages.some((m) => this.mayWant(m))) return messages;
    const epoch = this.epoch;
    try {
      await this.fence();
    } catch {
      return messages; // the connection failed: the statement decides
    }
    if (!this.ready || epoch !== this.epoch) return messages;
    return messages.filter((m) => this.mayWant(m));
  }

  private mayWant(m: OutgoingMessage): boolean {
    return this.dirty.has(m.workspaceId) || (this.types.get(m.workspaceId)?.has(m.type) ?? false);
  }

  /** A round trip that starts after this call; calls before it starts share it. */
  private fence(): Promise<void> {
    if (this.fenceWaiting) return this.fenceWaiting;
    const gap = this.lastFence + FENCE_GATHER_MS - Date.now();
    const ready = Promise.all([
      this.fenceInFlight?.catch(() => undefined),
      gap > 0 ? new Promise((resolve) => setTimeout(resolve, gap)) : undefined,
    ]);
    const waiting: Promise<void> = ready.then(() => {
      if (this.fenceWaiting === waiting) this.fenceWaiting = undefined;
      const listener = this.listener;
      if (!listener) throw new Error('not listening');
      this.lastFence = Date.now();
      const trip = listener.fence();
      this.fenceInFlight = trip;
      return trip;
    });
    this.fenceWaiting = waiting;
    return waiting;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const epoch = ++this.epoch;
    try {
      this.listener = await this.repo.listenToEndpoints(
        (workspaceId) => this.notified(workspaceId),
        (err) => this.lost(epoch, err),
      );
      await this.readAll();
      this.failures = 0;
    } catch (err) {
      this.lost(epoch, err);
    }
  }

  /** The listening connection failed: nothing is skipped until a new one has read the index in full. */
  private lost(epoch: number, err?: unknown): void {
    if (epoch !== this.epoch || this.stopped) return;
    this.epoch++;
    this.ready = false;
    const listener = this.listener;
    this.listener = undefined;
    void listener?.close();
    const delay = backoffMs(this.failures++, { firstMs: 200, capMs: 10_000, jitter: 0.2 });
    this.logger.warn(
      { err, retryInMs: delay },
      'webhook subscriptions: the LISTEN connection was lost; every batch goes to the fan-out until it is back',
    );
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private notified(workspaceId: string): void {
    this.dirty.set(workspaceId, ++this.sequence);
    this.toRead.add(workspaceId);
    this.reading ??= this.readNotified().finally(() => (this.reading = undefined));
  }

  /** Reads the notified workspaces again (one statement for all those waiting), until none waits. */
  private async readNotified(): Promise<void> {
    while (this.toRead.size > 0 && !this.stopped) {
      const workspaces = [...this.toRead];
      this.toRead.clear();
      const seen = new Map(workspaces.map((w) => [w, this.dirty.get(w) ?? 0]));
      try {
        const rows = await this.repo.subscriptions(workspaces);
        const read = new Map(rows.map((r) => [r.workspace_id, new Set(r.event_types)]));
        for (const w of workspaces) {
          const types = read.get(w);
          if (types) this.types.set(w, types);
          else this.types.delete(w);
          // Notified again while this read ran: it stays dirty, and is read again.
          if (this.dirty.get(w) === seen.get(w)) this.dirty.delete(w);
        }
      } catch (err) {
        // They stay dirty (treated as subscribed) until the next full read.
        this.logger.warn({ err }, 'webhook subscriptions: reading notified workspaces failed');
        return;
      }
    }
  }

  /** Reads every workspace's subscriptions; workspaces notified while it ran stay dirty. */
  private async readAll(): Promise<void> {
    if (!this.listener) return; // not listening: the read after the next connect counts
    const epoch = this.epoch;
    const since = this.sequence;
    const rows = await this.repo.subscriptions(null);
    if (epoch !== this.epoch) return; // the connection changed meanwhile: its own read follows
    this.types = new Map(rows.map((r) => [r.workspace_id, new Set(r.event_types)]));
    for (const [w, seq] of this.dirty) if (seq <= since) this.dirty.delete(w);
    this.ready = true;
  }

  private readFailed(err: unknown): void {
    this.logger.warn({ err }, 'webhook subscriptions: the periodic full read failed; the index stays as it was');
  }
}
