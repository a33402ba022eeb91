import type { Admin } from 'kafkajs';
import type { AppLogger } from '../logging/logger';
import { WorkLoop } from '../work/work-loop';

/**
 * Removes the consumer groups of replicas that are gone.
 *
 * A replica reads its reply and broadcast feeds in groups of its own, named
 * `<family><instance id>` (ADR 0002: `gateway.replies.<instance id>`). A clean
 * shutdown deletes its groups; a replica that crashed or was killed leaves
 * them behind, with a lag that grows for ever. Every replica runs this
 * janitor for the families it uses itself: a group of the family that is not
 * its own and stayed Empty (no member: its session timed out) on two sweeps
 * at least one interval apart is deleted. The broker refuses to delete a group
 * that has members again (NON_EMPTY_GROUP), so a replica that rejoins in
 * between keeps its group; two replicas deleting the same group race
 * harmlessly (the loser gets GROUP_ID_NOT_FOUND).
 */
export class PrivateGroupJanitor {
  /** Family prefix (physical, with the deployment prefix) → this replica's own group in it. */
  private readonly families = new Map<string, string>();
  /** Group id → when it was first seen Empty. */
  private readonly emptySince = new Map<string, number>();
  private loop?: WorkLoop;
  private sweeping?: Promise<string[]>;

  constructor(
    private readonly admin: () => Promise<Admin>,
    private readonly logger: AppLogger,
    private readonly intervalMs: number,
  ) {}

  /** Looks after `family` (a group id prefix ending in `.`); `own` is never touched. */
  watch(family: string, own: string): void {
    this.families.set(family, own);
    if (!this.loop && this.intervalMs > 0) {
      this.loop = new WorkLoop({ name: 'group-janitor', intervalMs: this.intervalMs, logger: this.logger }, async () => {
        await this.sweep();
        return false;
      });
      this.loop.start();
    }
  }

  /** Stops sweeping; resolves once a pass in progress ended. */
  stop(): Promise<void> {
    const loop = this.loop;
    this.loop = undefined;
    return loop?.stop() ?? Promise.resolve();
  }

  /** One pass; resolves with the groups it deleted. Never throws (a broker away is retried next time). */
  sweep(now = Date.now()): Promise<string[]> {
    this.sweeping ??= this.pass(now)
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'group janitor pass failed; retrying at the next interval');
        return [];
      })
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async pass(now: number): Promise<string[]> {
    if (this.families.size === 0) return [];
    const admin = await this.admin();
    const owns = new Set(this.families.values());
    const candidates = (await admin.listGroups()).groups
      .map((g) => g.groupId)
      .filter((id) => !owns.has(id) && [...this.families.keys()].some((family) => id.startsWith(family)));
    if (candidates.length === 0) {
      this.emptySince.clear();
      return [];
    }
    const { groups } = await admin.describeGroups(candidates);
    const empty = new Set(groups.filter((g) => g.state === 'Empty' || g.state === 'Dead').map((g) => g.groupId));
    for (const id of this.emptySince.keys()) if (!empty.has(id)) this.emptySince.delete(id);
    const due: string[] = [];
    for (const id of empty) {
      const since = this.emptySince.get(id);
      if (since === undefined) this.emptySince.set(id, now);
      else if (now - since >= this.intervalMs) due.push(id);
    }
    if (due.length === 0) return [];
    let deleted = due;
    try {
      await admin.deleteGroups(due);
    } catch (err) {
      // kafkajs rejects the call when a group fails (it has members again, or another replica deleted it first).
      const failed = (err as { groups?: Array<{ groupId: string }> }).groups;
      if (!failed) throw err;
      const ids = new Set(failed.map((g) => g.groupId));
      deleted = due.filter((id) => !ids.has(id));
    }
    for (const id of due) this.emptySince.delete(id);
    if (deleted.length > 0) this.logger.info({ groups: deleted }, 'removed the consumer groups of replicas that are gone');
    return deleted;
  }
}
