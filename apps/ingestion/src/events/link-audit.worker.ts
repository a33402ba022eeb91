import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { FindSessionCover, MAX_COVER_MEMBERS, type EventsStoredV1, type MemberRangeV1 } from '@worktrack/contracts';
import { CommandClient, LOGGER, Metrics, WorkLoop, type AppLogger } from '@worktrack/platform';
import { IngestionConfig } from '../ingestion.config';
import { LinkAuditRepository, type CoverSession, type LinkMismatch, type WindowMember } from './link-audit.repository';

/** The longest window one pass audits: a replica that was down catches up pass after pass. */
export const MAX_SPAN_MS = 5 * 60_000;
/**
 * How long the lease lasts unless renewed: a pass renews it before each step
 * (each bounded by a command timeout or one statement), so a replica killed
 * mid-pass holds the audit up for at most this long.
 */
const LEASE_MS = 30_000;
/** Events per replayed EventsStored message (under 100 bytes each as JSON). */
export const EVENTS_PER_MESSAGE = 1_000;
/** Mismatches named in the pass's log line. */
const LOGGED = 5;

/** What one pass did; `window` null when another replica holds the lease or nothing is due. */
export interface LinkAuditPass {
  window: { from: string; to: string } | null;
  members: number;
  audited: number;
  mismatched: number;
  reannounced: number;
  /** Events of members judged only in part this pass: more sessions overlap one instant than a cover reply carries. */
  unjudged: number;
  /** The window stopped short of now − settle (MAX_SPAN_MS): the next pass follows at once. */
  behind: boolean;
}

/**
 * Anti-entropy for the links (ADR 0016): every
 * LINK_AUDIT_INTERVAL_MS, one replica (the lease in `link_audit`) takes the
 * events received in [watermark, now − LINK_AUDIT_SETTLE_MS), asks
 * correlation for the sessions covering their members' `occurred_at` spans,
 * applies D-31's rule to them in SQL, and re-announces each event whose
 * stored link is not the rule's as a replayed EventsStored. Correlation then
 * stores the events it never saw and publishes again the current link of the
 * ones it held, which the versioned apply takes only if newer. Whatever lost
 * a message (EventsStored or EventsLinked), the link heals within a pass.
 * Costs nothing per batch: one scan of the window per pass.
 */
@Injectable()
export class LinkAuditWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: AppLogger;
  private readonly counted: Counter<'outcome'>;
  private readonly loop: WorkLoop;

  constructor(
    private readonly audit: LinkAuditRepository,
    private readonly commands: CommandClient,
    private readonly config: IngestionConfig,
    @Inject(LOGGER) logger: AppLogger,
    metrics: Metrics,
  ) {
    this.logger = logger.child({ component: 'link-audit' });
    this.counted = metrics.counter(
      'worktrack_link_audit_events_total',
      "Events the link audit went through, by outcome: audited, mismatched (stored link not D-31's), reannounced, unjudged (of members judged only in part).",
      ['outcome'],
    );
    // A pass that is behind (its window ended before the settle point) is followed at once by the next.
    this.loop = new WorkLoop({ name: 'link-audit', intervalMs: config.LINK_AUDIT_INTERVAL_MS, logger: this.logger }, async () => {
      const pass = await this.tick();
      return pass.behind;
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.LINK_AUDIT_INTERVAL_MS === 0) return;
    this.loop.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass now (tests call it; the schedule calls it every interval). */
  async tick(now = Date.now()): Promise<LinkAuditPass> {
    const idle: LinkAuditPass = { window: null, members: 0, audited: 0, mismatched: 0, reannounced: 0, unjudged: 0, behind: false };
    const end = now - this.config.LINK_AUDIT_SETTLE_MS;
    const holder = this.config.INSTANCE_ID;
    const watermark = await this.audit.claim(holder, LEASE_MS, new Date(end - MAX_SPAN_MS));
    if (!watermark) return idle;
    try {
      const from = watermark;
      const to = new Date(Math.min(end, from.getTime() + MAX_SPAN_MS));
      if (to <= from) {
        await this.audit.release(holder);
        return idle;
      }
      const keep = async (): Promise<void> => {
        if (!(await this.audit.renew(holder, LEASE_MS))) throw new Error('link audit: lease lost mid-pass (another replica audits)');
      };
      await this.audit.summarizeNewRanges();
      const members = await this.audit.windowMembers(from, to);
      const pass = {
        ...idle,
        window: { from: from.toISOString(), to: to.toISOString() },
        members: members.length,
        behind: to.getTime() < end,
      };
      if (members.length > 0) {
        const { sessions, judged } = await this.cover(members, keep);
        await keep();
        const wrong = await this.audit.mismatches({ from, to }, judged, sessions);
        const messages = replays(wrong);
        await this.audit.reannounce(messages);
        pass.audited = members.reduce((n, m) => n + m.events, 0);
        pass.mismatched = wrong.length;
        pass.reannounced = wrong.length;
        const cut = new Set(judged.filter((j) => j.until !== null).map((j) => j.memberId));
        pass.unjudged = members.filter((m) => cut.has(m.member_id)).reduce((n, m) => n + m.events, 0);
        this.counted.inc({ outcome: 'audited' }, pass.audited);
        if (pass.mismatched > 0) {
          this.counted.inc({ outcome: 'mismatched' }, pass.mismatched);
          this.counted.inc({ outcome: 'reannounced' }, pass.reannounced);
          this.logger.warn(
            {
              window: pass.window,
              audited: pass.audited,
              mismatched: pass.mismatched,
              messages: messages.length,
              sample: wrong
                .slice(0, LOGGED)
                .map((w) => ({ eventId: w.id, memberId: w.member_id, stored: w.session_id, expected: w.expected })),
            },
            'link audit: events whose link is wrong re-announced to correlation',
          );
        }
        if (pass.unjudged > 0) {
          this.counted.inc({ outcome: 'unjudged' }, pass.unjudged);
          this.logger.warn(
            { window: pass.window, unjudged: pass.unjudged },
            'link audit: members judged only in part (too many overlapping sessions)',
          );
        }
      }
      await this.audit.advance(holder, to);
      return pass;
    } catch (err) {
      await this.audit.release(holder).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The sessions covering every member's span, asked MAX_COVER_MEMBERS
   * members at a time; a member whose reply was cut is asked again from
   * where it stopped being complete. A member whose reply cannot progress
   * (more sessions overlap one instant than a reply carries) is judged only
   * before that instant.
   */
  private async cover(
    members: WindowMember[],
    keep: () => Promise<void>,
  ): Promise<{ sessions: CoverSession[]; judged: Array<{ memberId: string; until: string | null }> }> {
    const sessions = new Map<string, CoverSession>();
    const until = new Map<string, string | null>(members.map((m) => [m.member_id, null]));
    let pending: MemberRangeV1[] = members.map((m) => ({ memberId: m.member_id, from: m.first.toISOString(), to: m.last.toISOString() }));
    while (pending.length > 0) {
      const next: MemberRangeV1[] = [];
      for (let i = 0; i < pending.length; i += MAX_COVER_MEMBERS) {
        const chunk = pending.slice(i, i + MAX_COVER_MEMBERS);
        const asked = new Map(chunk.map((r) => [r.memberId, r]));
        await keep();
        const reply = await this.commands.send(FindSessionCover, { members: chunk }, { key: chunk[0].memberId });
        for (const m of reply.members) {
          const range = asked.get(m.memberId);
          if (!range) continue;
          for (const s of m.sessions) sessions.set(s.sessionId, { memberId: m.memberId, ...s });
          if (m.completeUntil === null) continue;
          if (Date.parse(m.completeUntil) > Date.parse(range.from)) next.push({ ...range, from: m.completeUntil });
          else until.set(m.memberId, range.from);
        }
      }
      pending = next;
    }
    return { sessions: [...sessions.values()], judged: [...until].map(([memberId, u]) => ({ memberId, until: u })) };
  }
}

/** The replayed EventsStored messages for the mismatches: per member, EVENTS_PER_MESSAGE events each. */
export function replays(wrong: LinkMismatch[]): EventsStoredV1[] {
  const byMember = new Map<string, LinkMismatch[]>();
  for (const w of wrong) {
    const list = byMember.get(w.member_id) ?? [];
    list.push(w);
    byMember.set(w.member_id, list);
  }
  const messages: EventsStoredV1[] = [];
  for (const [memberId, list] of byMember) {
    for (let i = 0; i < list.length; i += EVENTS_PER_MESSAGE) {
      const chunk = list.slice(i, i + EVENTS_PER_MESSAGE);
      messages.push({
        memberId,
        workspaceId: chunk[0].workspace_id,
        events: chunk.map((w) => ({ eventId: w.id, occurredAt: w.occurred_at.toISOString() })),
        replay: true,
      });
    }
  }
  return messages;
}
