import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import {
  MAX_CLOSE_BACKDATE_MS,
  startTimesIssues,
  type ActorV1,
  type CloseSessionV1,
  type FindOwnedSessionsV1,
  type ListSessionsV1,
  type OwnedSessionsV1,
  type PauseSessionV1,
  type ResumeSessionV1,
  type SessionChange,
  type SessionPageV1,
  type SessionV1,
  type StartSessionV1,
} from '@worktrack/contracts';
import { DomainError, SignedCursor, type CursorScope, type QueuedMessage } from '@worktrack/platform';
import { SessionsMembersRepository } from '../members/members.repository';
import { SessionsConfig } from '../sessions.config';
import { calendarRange, isUsableZone } from './calendar-range';
import type { SessionEntity } from './entities/session.entity';
import { toSessionV1 } from './session.mapper';
import { sessionIdFor, startBodyHash } from './session-ids';
import {
  idempotencyKeyReused,
  malformedCursor,
  profileNotProjectedYet,
  sessionNotFound,
  sessionStateConflict,
  sessionValidationFailed,
} from './sessions.errors';
import { SessionsPublisher, type ChangedRefs } from './sessions.publisher';
import type { KeyClaim, NewSessionRow, SessionKey } from './session-rows';
import { SessionsRepository } from './sessions.repository';

/** How a transition that could not be done at once ends: with the session as it is, or an error raised after the commit (an expiry on touch stays). */
type Verdict = { session: SessionEntity } | { error: DomainError } | 'retry';

/**
 * Concurrent timer starts of one member each close the live session and try
 * to insert theirs; one wins each round, the others close the winner and go
 * again. This bounds the rounds one start waits through, not correctness.
 */
const MAX_TIMER_ROUNDS = 100;

const isLive = (s: SessionEntity): boolean => s.state === 'active' || s.state === 'paused';

/** The row a start command inserts: a timer live from `now`, a manual block closed as given (D-24). */
function newRow(command: StartSessionV1, id: string, now: Date): NewSessionRow {
  const { actor } = command;
  const manual = command.source !== 'timer';
  return {
    id,
    workspaceId: actor.workspaceId,
    memberId: actor.memberId,
    source: command.source,
    state: manual ? 'closed' : 'active',
    intentText: command.intentText,
    goalId: command.goalId ?? null,
    projectId: command.projectId ?? null,
    taskId: command.taskId ?? null,
    estimatedDurationMin: command.estimatedDurationMin ?? null,
    // D-30: intentional unless the member says the work is reactive; tags deduplicated in the order given.
    workType: command.workType ?? 'intentional',
    userTags: [...new Set(command.userTags ?? [])],
    startedAt: manual ? new Date(command.startedAt as string) : now,
    closedAt: manual ? new Date(command.endedAt as string) : null,
    now,
  };
}

/**
 * Work sessions (D-22 … D-30): start (timer, manual, idempotency keys),
 * pause, resume, close, list. Every change commits with its change message
 * in the outbox; the relay publishes after the commit.
 */
@Injectable()
export class SessionsService {
  private readonly maxMs: number;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly publisher: SessionsPublisher,
    private readonly members: SessionsMembersRepository,
    private readonly cursors: SignedCursor,
    config: SessionsConfig,
  ) {
    this.maxMs = config.SESSION_MAX_DURATION_MS;
  }

  async start(command: StartSessionV1, messageId: string): Promise<SessionV1> {
    this.checkStart(command, new Date());
    const id = sessionIdFor(Date.parse(command.requestedAt), messageId);
    const bodyHash = command.idempotencyKey !== undefined ? startBodyHash(command) : undefined;
    // The common start — no live session, a fresh key — is one statement with its message.
    const claim: KeyClaim | undefined =
      command.idempotencyKey !== undefined && bodyHash !== undefined ? { key: command.idempotencyKey, bodyHash } : undefined;
    const created = await this.sessions.insertQueued(newRow(command, id, new Date()), claim, this.publisher.queued());
    if (created) return toSessionV1(created);
    const { session } = await this.sessions.transaction((m) => this.startIn(m, command, id, bodyHash));
    return toSessionV1(session);
  }

  pause(command: PauseSessionV1): Promise<SessionV1> {
    const pauseReason = command.pauseReason ?? null;
    return this.transition(
      command.actor,
      command.sessionId,
      'paused',
      (m, key, now, message) =>
        this.sessions.pauseIfActive(m, key, uuidv7({ msecs: now.getTime() }), pauseReason, now, this.maxMs, message),
      (s) => (s.state === 'active' ? 'retry' : { error: sessionStateConflict(s.state, 'pause') }),
    );
  }

  resume(command: ResumeSessionV1): Promise<SessionV1> {
    return this.transition(
      command.actor,
      command.sessionId,
      'resumed',
      (m, key, now, message) => this.sessions.resumeIfPaused(m, key, now, this.maxMs, message),
      (s) => (s.state === 'paused' ? 'retry' : { error: sessionStateConflict(s.state, 'resume') }),
    );
  }

  /** D-26: idempotent; `closedAt` back-dates by up to 24 h, never before the start, capped at the maximum duration. */
  close(command: CloseSessionV1): Promise<SessionV1> {
    const closedAt = command.closedAt !== undefined ? new Date(command.closedAt) : null;
    return this.transition(
      command.actor,
      command.sessionId,
      (closed, now) => (closedAt !== null && closed.closedAt !== null && closed.closedAt < now ? 'backdated' : 'closed'),
      (m, key, now, message) => this.sessions.closeIfLive(m, key, closedAt, command.closingNote ?? null, now, this.maxMs, message),
      (s, now) => {
        if (s.state === 'closed') return { session: s };
        if (closedAt === null) return 'retry';
        const issues: string[] = [];
        if (closedAt > now) issues.push('closed_at must not be in the future');
        if (closedAt.getTime() < now.getTime() - MAX_CLOSE_BACKDATE_MS) issues.push('closed_at may be at most 24 hours ago');
        if (closedAt < s.startedAt) issues.push(`closed_at must not be before the session's started_at (${s.startedAt.toISOString()})`);
        return issues.length > 0 ? { error: sessionValidationFailed(issues.map((issue) => ({ path: 'closed_at', issue }))) } : 'retry';
      },
    );
  }

  /**
   * D-29: `from`/`to` are calendar dates of `started_at` in the member's
   * profile time zone. A member this service cannot place in a zone gets 503
   * UNAVAILABLE (retryable), never a UTC guess.
   */
  async list(query: ListSessionsV1): Promise<SessionPageV1> {
    const { actor, limit, cursor, ...filters } = query;
    if (filters.from && filters.to && filters.from > filters.to) {
      throw sessionValidationFailed([{ path: 'from', issue: 'from must not be after to' }]);
    }
    const scope: CursorScope = { list: 'sessions', owner: actor.memberId, filters };
    const before = cursor ? this.position(cursor, scope) : undefined;
    const zone = filters.from || filters.to ? await this.zoneOf(actor) : 'UTC';
    const rows = await this.sessions.page({
      memberId: actor.memberId,
      workspaceId: actor.workspaceId,
      state: filters.state,
      goalId: filters.goalId,
      projectId: filters.projectId,
      ...calendarRange(filters.from, filters.to, zone),
      before,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      sessions: page.map(toSessionV1),
      nextCursor: rows.length > limit && last ? this.cursors.encode([last.startedAt.toISOString(), last.id], scope) : null,
    };
  }

  /** D-45: which of the asked ids are the actor's own sessions (a foreign id behaves like a missing one, D-7). */
  async owned(query: FindOwnedSessionsV1): Promise<OwnedSessionsV1> {
    return { sessionIds: await this.sessions.owned(query.sessionIds, query.actor.memberId, query.actor.workspaceId) };
  }

  private async zoneOf(actor: ActorV1): Promise<string> {
    const zone = await this.members.timezoneOf(actor);
    if (!isUsableZone(zone)) {
      throw profileNotProjectedYet();
    }
    return zone;
  }

  private async startIn(
    m: EntityManager,
    command: StartSessionV1,
    id: string,
    bodyHash: string | undefined,
  ): Promise<{ session: SessionEntity; changed: boolean }> {
    const { actor } = command;
    const now = new Date();
    if (command.idempotencyKey !== undefined && bodyHash !== undefined) {
      const claimed = await this.sessions.claimIdempotencyKey(m, actor.memberId, command.idempotencyKey, bodyHash, id, now);
      if (!claimed) {
        const prior = await this.sessions.findIdempotencyKey(m, actor.memberId, command.idempotencyKey);
        if (!prior) throw new Error('idempotency key vanished'); // keys are never deleted
        if (prior.bodyHash !== bodyHash) throw idempotencyKeyReused();
        const session = await this.sessions.find(m, prior.sessionId, actor.memberId, actor.workspaceId);
        if (!session) throw new Error(`idempotency key names a missing session ${prior.sessionId}`);
        return { session, changed: false }; // D-28: the session as it is now (also a redelivered command's)
      }
    }
    const row = newRow(command, id, now);
    let session: { session: SessionEntity; changed: boolean };
    if (command.source === 'timer') {
      session = await this.startTimer(m, row);
    } else {
      const inserted = await this.sessions.insert(m, row);
      session = inserted ? { session: inserted, changed: true } : await this.redelivered(m, row);
    }
    if (session.changed) await this.publisher.changed(m, 'created', session.session);
    return session;
  }

  /**
   * D-23: starts the member's timer session; when the member has a live one
   * (the insert meets it in the unique index), closes it and starts the new
   * one where it ends. A concurrent start that commits a live session in
   * between is met the same way in the next round.
   */
  private async startTimer(m: EntityManager, row: NewSessionRow): Promise<{ session: SessionEntity; changed: boolean }> {
    let startedAt = row.now;
    for (let round = 1; round <= MAX_TIMER_ROUNDS; round++) {
      const session = await this.sessions.insert(m, { ...row, startedAt, now: round === 1 ? row.now : new Date() });
      if (session) return { session, changed: true };
      const delivered = await this.sessions.find(m, row.id, row.memberId, row.workspaceId);
      if (delivered) return { session: delivered, changed: false }; // a redelivered command
      startedAt = new Date();
      for (const previous of await this.sessions.closeLiveForNewTimer(m, row.memberId, startedAt, this.maxMs)) {
        await this.publisher.changed(m, previous.closedReason === 'max_duration' ? 'auto_closed' : 'closed', previous);
        // The new session starts where the previous one ends (later than now only if clocks disagree).
        if (previous.closedReason === 'new_timer' && previous.closedAt && previous.closedAt > startedAt) startedAt = previous.closedAt;
      }
    }
    throw new Error(`no timer start after ${MAX_TIMER_ROUNDS} rounds of concurrent starts`);
  }

  /** The session a redelivered start command created already. */
  private async redelivered(m: EntityManager, row: NewSessionRow): Promise<{ session: SessionEntity; changed: boolean }> {
    const session = await this.sessions.find(m, row.id, row.memberId, row.workspaceId);
    if (!session) throw new Error(`session ${row.id} neither inserted nor found`);
    return { session, changed: false };
  }

  /** Spec POST /sessions and D-24, with this deployment's maximum duration. */
  private checkStart(c: StartSessionV1, now: Date): void {
    const details = startTimesIssues(c, now.getTime(), this.maxMs);
    if (details.length > 0) throw sessionValidationFailed(details);
  }

  /**
   * One transition of the member's session. First the change itself as one
   * conditional statement that also queues its message and commits on its
   * own (the common case in one round trip). When that does not
   * apply, in one transaction: the change again, and if it still does not
   * apply the session is locked and looked at — a missing or foreign id is
   * 404 (D-27), a live session past the maximum duration is closed first
   * (D-25) — and `verdict` says what to answer, or to try the change again
   * (the lock now holds it still).
   */
  private async transition(
    actor: ActorV1,
    sessionId: string,
    change: SessionChange | ((changed: SessionEntity, now: Date) => SessionChange),
    attempt: (
      m: EntityManager | undefined,
      key: SessionKey,
      now: Date,
      message?: QueuedMessage<ChangedRefs>,
    ) => Promise<SessionEntity | undefined>,
    verdict: (s: SessionEntity, now: Date) => Verdict,
  ): Promise<SessionV1> {
    const now = new Date();
    const key: SessionKey = { id: sessionId, memberId: actor.memberId, workspaceId: actor.workspaceId };
    const done = await attempt(undefined, key, now, this.publisher.queued());
    if (done) return toSessionV1(done);
    const outcome = await this.sessions.transaction(async (m): Promise<Exclude<Verdict, 'retry'>> => {
      for (let round = 1; round <= 2; round++) {
        const changed = await attempt(m, key, now);
        if (changed) {
          await this.publisher.changed(m, typeof change === 'string' ? change : change(changed, now), changed);
          return { session: changed };
        }
        let session = await this.sessions.findForUpdate(m, sessionId, actor.memberId, actor.workspaceId);
        if (!session) return { error: sessionNotFound(sessionId) };
        if (isLive(session) && session.startedAt.getTime() + this.maxMs <= now.getTime()) {
          const expired = await this.sessions.expireIfDue(m, session.id, now, this.maxMs);
          if (expired) {
            await this.publisher.changed(m, 'auto_closed', expired);
            session = expired;
          }
        }
        const answer = verdict(session, now);
        if (answer !== 'retry') return answer;
      }
      throw new Error(`session ${sessionId}: the change did not apply while the session was locked`);
    });
    if ('error' in outcome) throw outcome.error;
    return toSessionV1(outcome.session);
  }

  private position(cursor: string, scope: CursorScope): { startedAt: Date; id: string } {
    const [startedAt, id] = this.cursors.decode(cursor, scope);
    const at = new Date(String(startedAt));
    if (typeof startedAt !== 'string' || typeof id !== 'string' || Number.isNaN(at.getTime()) || !/^[0-9a-f-]{36}$/.test(id)) {
      throw malformedCursor();
    }
    return { startedAt: at, id };
  }
}
