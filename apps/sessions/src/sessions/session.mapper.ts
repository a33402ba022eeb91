import type { SessionV1 } from '@worktrack/contracts';
import type { SessionEntity } from './entities/session.entity';

/** A session as the contract shows it. */
export const toSessionV1 = (s: SessionEntity): SessionV1 => ({
  sessionId: s.id,
  intentText: s.intentText,
  state: s.state,
  source: s.source,
  workType: s.workType,
  goalId: s.goalId,
  projectId: s.projectId,
  startedAt: s.startedAt.toISOString(),
  closedAt: s.closedAt ? s.closedAt.toISOString() : null,
  userTags: s.userTags,
  createdAt: s.createdAt.toISOString(),
});
