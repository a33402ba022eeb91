import { MAX_COVER_MEMBERS, type FindSessionCoverV1, type SessionCoverV1 } from '@worktrack/contracts';
import { createLogger, Metrics, type CommandClient } from '@worktrack/platform';
import { IngestionConfig } from '../ingestion.config';
import type { CoverSession, LinkAuditRepository, LinkMismatch, WindowMember } from './link-audit.repository';
import { EVENTS_PER_MESSAGE, LinkAuditWorker, MAX_SPAN_MS, replays } from './link-audit.worker';

const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const t0 = Date.parse('2026-03-02T09:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

/** The worker's orchestration against fakes: windows, chunked cover requests, cut replies, replays. */
describe('LinkAuditWorker', () => {
  const config = Object.assign(new IngestionConfig(), { LINK_AUDIT_SETTLE_MS: 20_000, INSTANCE_ID: 'me' });
  const logger = createLogger('test', 'silent', 'test');

  function setup(opts: {
    watermark?: Date;
    members: WindowMember[];
    answer: (query: FindSessionCoverV1) => SessionCoverV1;
    mismatches?: LinkMismatch[];
  }) {
    const calls = {
      sent: [] as FindSessionCoverV1[],
      judged: [] as Array<Array<{ memberId: string; until: string | null }>>,
      sessions: [] as CoverSession[][],
      windows: [] as Array<{ from: Date; to: Date }>,
      reannounced: [] as unknown[][],
      advanced: [] as Date[],
      released: 0,
      /** Order of the repository's window reads: 'summarize' must come before 'members'. */
      order: [] as string[],
    };
    const repo = {
      claim: () => Promise.resolve(opts.watermark),
      summarizeNewRanges: () => {
        calls.order.push('summarize');
        return Promise.resolve(0);
      },
      windowMembers: (from: Date, to: Date) => {
        calls.order.push('members');
        calls.windows.push({ from, to });
        return Promise.resolve(opts.members);
      },
      mismatches: (_w: unknown, judged: Array<{ memberId: string; until: string | null }>, sessions: CoverSession[]) => {
        calls.judged.push(judged);
        calls.sessions.push(sessions);
        return Promise.resolve(opts.mismatches ?? []);
      },
      reannounce: (messages: unknown[]) => {
        calls.reannounced.push(messages);
        return Promise.resolve();
      },
      advance: (_holder: string, to: Date) => {
        calls.advanced.push(to);
        return Promise.resolve();
      },
      renew: () => Promise.resolve(true),
      release: () => {
        calls.released++;
        return Promise.resolve();
      },
    } as unknown as LinkAuditRepository;
    const commands = {
      send: (_c: unknown, query: FindSessionCoverV1) => {
        calls.sent.push(query);
        return Promise.resolve(opts.answer(query));
      },
    } as unknown as CommandClient;
    return { worker: new LinkAuditWorker(repo, commands, config, logger, new Metrics('test', { processMetrics: false })), calls };
  }
  const member = (n: number, events = 1): WindowMember => ({
    member_id: uuid(n),
    first: new Date(t0),
    last: new Date(t0 + 60_000),
    events,
  });
  const none = (query: FindSessionCoverV1): SessionCoverV1 => ({
    members: query.members.map((m) => ({ memberId: m.memberId, sessions: [], completeUntil: null })),
  });

  it('does nothing while another replica holds the lease', async () => {
    const { worker, calls } = setup({ watermark: undefined, members: [member(1)], answer: none });
    const pass = await worker.tick(t0);
    expect(pass.window).toBeNull();
    expect(calls.windows).toEqual([]);
    expect(calls.advanced).toEqual([]);
  });

  it('audits [watermark, now − settle), at most MAX_SPAN_MS, and says when it is behind', async () => {
    const now = t0 + 60 * 60_000;
    const recent = setup({ watermark: new Date(now - 50_000), members: [], answer: none });
    expect((await recent.worker.tick(now)).window).toEqual({ from: iso(now - 50_000), to: iso(now - 20_000) });
    expect(recent.calls.advanced).toEqual([new Date(now - 20_000)]);
    // The new BRIN ranges are summarised before the window is read, so its scan reads only its pages.
    expect(recent.calls.order).toEqual(['summarize', 'members']);
    const late = setup({ watermark: new Date(t0), members: [], answer: none });
    const pass = await late.worker.tick(now);
    expect(pass.window).toEqual({ from: iso(t0), to: iso(t0 + MAX_SPAN_MS) });
    expect(pass.behind).toBe(true);
    const idle = setup({ watermark: new Date(now - 10_000), members: [member(1)], answer: none });
    expect((await idle.worker.tick(now)).window).toBeNull();
    expect(idle.calls.released).toBe(1);
  });

  it('asks for the cover MAX_COVER_MEMBERS members at a time and re-announces nothing when every link is right', async () => {
    const members = Array.from({ length: 2 * MAX_COVER_MEMBERS + 1 }, (_, i) => member(i + 1, 3));
    const { worker, calls } = setup({ watermark: new Date(t0), members, answer: none });
    const pass = await worker.tick(t0 + 60 * 60_000);
    expect(calls.sent.map((q) => q.members.length)).toEqual([MAX_COVER_MEMBERS, MAX_COVER_MEMBERS, 1]);
    expect(pass).toMatchObject({ members: members.length, audited: 3 * members.length, mismatched: 0, reannounced: 0, unjudged: 0 });
    expect(calls.judged[0].every((j) => j.until === null)).toBe(true);
    expect(calls.reannounced).toEqual([[]]);
  });

  it('asks again from where a cut reply stops being complete, and judges a member that cannot progress only before it', async () => {
    const [a, b] = [member(1, 4), member(2, 6)];
    const cut = iso(t0 + 30_000);
    const answer = (query: FindSessionCoverV1): SessionCoverV1 => ({
      members: query.members.map((m) => {
        if (m.memberId === a.member_id && m.from === iso(t0))
          return { memberId: m.memberId, sessions: [{ sessionId: uuid(100), startedAt: iso(t0), closedAt: null }], completeUntil: cut };
        if (m.memberId === a.member_id)
          return { memberId: m.memberId, sessions: [{ sessionId: uuid(101), startedAt: cut, closedAt: null }], completeUntil: null };
        // b: cut where it was asked from: no progress possible.
        return { memberId: m.memberId, sessions: [{ sessionId: uuid(200), startedAt: iso(t0), closedAt: null }], completeUntil: m.from };
      }),
    });
    const { worker, calls } = setup({ watermark: new Date(t0), members: [a, b], answer });
    const pass = await worker.tick(t0 + 60 * 60_000);
    expect(calls.sent).toEqual([
      {
        members: [
          { memberId: a.member_id, from: iso(t0), to: iso(t0 + 60_000) },
          { memberId: b.member_id, from: iso(t0), to: iso(t0 + 60_000) },
        ],
      },
      { members: [{ memberId: a.member_id, from: cut, to: iso(t0 + 60_000) }] },
    ]);
    expect(calls.judged[0]).toEqual([
      { memberId: a.member_id, until: null },
      { memberId: b.member_id, until: iso(t0) },
    ]);
    expect(calls.sessions[0].map((s) => s.sessionId).sort()).toEqual([uuid(100), uuid(101), uuid(200)]);
    expect(pass.unjudged).toBe(6);
  });

  it('re-announces mismatches as replayed EventsStored, per member, in bounded messages', () => {
    const wrong = (n: number, memberN: number): LinkMismatch => ({
      id: uuid(1_000 + n),
      member_id: uuid(memberN),
      workspace_id: uuid(99),
      occurred_at: new Date(t0 + n),
      session_id: null,
      expected: uuid(500),
    });
    const messages = replays([...Array.from({ length: EVENTS_PER_MESSAGE + 1 }, (_, i) => wrong(i, 1)), wrong(5_000, 2)]);
    expect(messages.map((m) => [m.memberId, m.events.length, m.replay])).toEqual([
      [uuid(1), EVENTS_PER_MESSAGE, true],
      [uuid(1), 1, true],
      [uuid(2), 1, true],
    ]);
    expect(messages[2]).toEqual({
      memberId: uuid(2),
      workspaceId: uuid(99),
      events: [{ eventId: uuid(6_000), occurredAt: iso(t0 + 5_000) }],
      replay: true,
    });
  });
});
