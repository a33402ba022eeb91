import { MAX_EXTERNAL_ID_LENGTH } from '@worktrack/contracts';
import { MappedEvent, MappingOutcome } from '../mapping/mapped-event';
import {
  arr,
  bool,
  firstTime,
  guardMalformed,
  JsonObject,
  needObj,
  needStr,
  num,
  obj,
  occurredAtFor,
  secondsBetween,
  str,
  withoutSecrets,
} from '../mapping/json-read';

/** One webhook delivery as the controller received it (headers already verified). */
export interface GithubDelivery {
  /** `X-GitHub-Event`. */
  event: string;
  /** `X-GitHub-Delivery`: a GUID, the same on redelivery — the dedup key (D-15, D-36). */
  deliveryId: string;
  /** The parsed JSON body. */
  body: unknown;
  /** The connected GitHub login (case-insensitive); null maps every sender. */
  account: string | null;
  receivedAt: Date;
}

/** What one event mapper yields before the common fields are added. */
interface Draft {
  eventType: string;
  at: Date | undefined;
  payload: JsonObject;
}
type Ignored = { kind: 'ignored'; reason: string };
type EventMapper = (body: JsonObject) => Draft | Ignored;

const ignored = (reason: string): Ignored => ({ kind: 'ignored', reason });
const login = (x: unknown): string | null => str(obj(x)?.login) ?? null;
const repositoryName = (body: JsonObject): string => needStr(needObj(body.repository, 'repository').full_name, 'repository.full_name');
/** The longest `:<index>` suffix we append; keeps the external id within MAX_EXTERNAL_ID_LENGTH. */
const INDEX_SUFFIX_ROOM = 8;
/** A push event lists at most this many commit ids (GitHub itself sends at most 20 commits per push event). */
export const MAX_LISTED_COMMITS = 20;

/**
 * Maps one GitHub delivery to ActivityEvents, metadata only (D-36): never
 * commit messages, author emails, bodies, descriptions, check output or diffs.
 * Each event's external id is `<delivery id>:<index>`, so a redelivery
 * deduplicates (D-15).
 */
export function mapGithubDelivery(input: GithubDelivery): MappingOutcome {
  const { event, deliveryId, body, account, receivedAt } = input;
  if (event === 'ping') return ignored('ping: the webhook is connected');
  const mapper = MAPPERS.get(event);
  if (mapper === undefined) return ignored(`github event "${event}" is not mapped`);
  if (deliveryId === '' || deliveryId.length > MAX_EXTERNAL_ID_LENGTH - INDEX_SUFFIX_ROOM) {
    return { kind: 'invalid', reason: 'the X-GitHub-Delivery id is empty or too long' };
  }
  return guardMalformed((): MappingOutcome => {
    const root = needObj(body, 'the body');
    const notOurs = senderFilter(root, account);
    if (notOurs) return notOurs;
    const draft = mapper(root);
    if ('kind' in draft) return draft;
    return { kind: 'mapped', events: [toEvent(draft, `${deliveryId}:0`, receivedAt)] };
  });
}

function senderFilter(body: JsonObject, account: string | null): Ignored | undefined {
  if (account === null) return undefined;
  const sender = login(body.sender);
  if (sender === null) return ignored(`the delivery names no sender, so it is not ${account}'s activity`);
  if (sender.toLowerCase() !== account.toLowerCase()) return ignored(`sender "${sender}" is not the connected account ${account}`);
  return undefined;
}

function toEvent(draft: Draft, externalId: string, receivedAt: Date): MappedEvent {
  return {
    sourceType: 'github',
    eventType: draft.eventType,
    occurredAt: occurredAtFor(draft.at, receivedAt),
    payload: withoutSecrets(draft.payload),
    externalId,
  };
}

function mapPush(body: JsonObject): Draft {
  const repository = needObj(body.repository, 'repository');
  const headCommit = obj(body.head_commit);
  const commits = (arr(body.commits) ?? []).map(obj);
  const pusher = obj(body.pusher);
  return {
    eventType: 'push',
    // The push's own time: the head commit's author time can be days older (a rebase, a cherry-pick).
    at: firstTime([[repository.pushed_at, 'repository.pushed_at']]),
    payload: {
      repository: repositoryName(body),
      ref: needStr(body.ref, 'ref'),
      before: str(body.before) ?? null,
      after: str(body.after) ?? null,
      commit_count: commits.length,
      distinct_commit_count: commits.filter((c) => c?.distinct === true).length,
      forced: bool(body.forced) ?? false,
      created: bool(body.created) ?? false,
      deleted: bool(body.deleted) ?? false,
      compare_url: str(body.compare) ?? null,
      // `pusher` is { name, email } — the name is the login; the email stays out (D-36).
      pusher: str(pusher?.name) ?? login(body.sender),
      head_commit_id: str(headCommit?.id) ?? null,
      // Metadata of the head commit only: never its message or an author's email (D-36).
      head_commit: headCommit
        ? {
            id: str(headCommit.id) ?? null,
            timestamp: str(headCommit.timestamp) ?? null,
            author: str(obj(headCommit.author)?.username) ?? null,
            distinct: bool(headCommit.distinct) ?? null,
          }
        : null,
      // A capped list, so one huge push stays a small event.
      commit_ids: commits
        .map((c) => str(c?.id))
        .filter((id): id is string => id !== undefined)
        .slice(0, MAX_LISTED_COMMITS),
    },
  };
}

const PULL_REQUEST_ACTIONS = new Set([
  'opened',
  'reopened',
  'closed',
  'ready_for_review',
  'converted_to_draft',
  'synchronize',
  'review_requested',
]);

function mapPullRequest(body: JsonObject): Draft | Ignored {
  const action = needStr(body.action, 'action');
  const pr = needObj(body.pull_request, 'pull_request');
  if (action === 'edited') return ignored('pull_request.edited is not meaningful activity');
  if (!PULL_REQUEST_ACTIONS.has(action)) return ignored(`pull_request action "${action}" is not mapped`);
  const merged = bool(pr.merged) ?? false;
  const atField = pullRequestTimeField(action, merged);
  return {
    eventType: action === 'closed' && merged ? 'pull_request.merged' : `pull_request.${action}`,
    at: firstTime([
      [pr[atField], `pull_request.${atField}`],
      [pr.updated_at, 'pull_request.updated_at'],
      [pr.created_at, 'pull_request.created_at'],
    ]),
    payload: {
      repository: repositoryName(body),
      number: num(pr.number) ?? num(body.number) ?? null,
      title: str(pr.title) ?? null,
      state: str(pr.state) ?? null,
      draft: bool(pr.draft) ?? false,
      merged,
      author: login(pr.user),
      head_ref: str(obj(pr.head)?.ref) ?? null,
      base_ref: str(obj(pr.base)?.ref) ?? null,
      additions: num(pr.additions) ?? null,
      deletions: num(pr.deletions) ?? null,
      changed_files: num(pr.changed_files) ?? null,
      commits: num(pr.commits) ?? null,
      html_url: str(pr.html_url) ?? null,
      ...(action === 'review_requested'
        ? { requested_reviewer: login(body.requested_reviewer) ?? str(obj(body.requested_team)?.slug) ?? null }
        : {}),
    },
  };
}

/** Which pull request timestamp tells when `action` happened. */
function pullRequestTimeField(action: string, merged: boolean): string {
  if (action === 'opened') return 'created_at';
  if (action === 'closed') return merged ? 'merged_at' : 'closed_at';
  return 'updated_at';
}

const WORKFLOW_RUN_TYPES = new Map([
  ['requested', 'ci.run.requested'],
  ['in_progress', 'ci.run.started'],
  ['completed', 'ci.run.completed'],
]);

function mapWorkflowRun(body: JsonObject): Draft | Ignored {
  const action = needStr(body.action, 'action');
  const run = needObj(body.workflow_run, 'workflow_run');
  const eventType = WORKFLOW_RUN_TYPES.get(action);
  if (eventType === undefined) return ignored(`workflow_run action "${action}" is not mapped`);
  const created = firstTime([[run.created_at, 'workflow_run.created_at']]);
  const started = firstTime([[run.run_started_at, 'workflow_run.run_started_at']]);
  const updated = firstTime([[run.updated_at, 'workflow_run.updated_at']]);
  const completed = action === 'completed';
  return {
    eventType,
    at: runTime(action, created, started, updated),
    // `display_title` and `head_commit` carry the commit message: left out (D-36).
    payload: {
      provider: 'github_actions',
      repository: repositoryName(body),
      workflow: str(run.name) ?? str(obj(body.workflow)?.name) ?? null,
      run_id: num(run.id) ?? null,
      run_number: num(run.run_number) ?? null,
      run_attempt: num(run.run_attempt) ?? null,
      event: str(run.event) ?? null,
      status: str(run.status) ?? null,
      conclusion: str(run.conclusion) ?? null,
      head_branch: str(run.head_branch) ?? null,
      head_sha: str(run.head_sha) ?? null,
      html_url: str(run.html_url) ?? null,
      duration_seconds: completed ? secondsBetween(started ?? created, updated) : null,
    },
  };
}

/** When a run's `action` happened: completion is the last update; a start is run_started_at; a request is created_at. */
function runTime(action: string, created: Date | undefined, started: Date | undefined, updated: Date | undefined): Date | undefined {
  if (action === 'completed') return updated ?? started ?? created;
  if (action === 'in_progress') return started ?? updated ?? created;
  return created ?? updated;
}

const CHECK_RUN_TYPES = new Map([
  ['created', 'ci.check.started'],
  ['completed', 'ci.check.completed'],
]);

function mapCheckRun(body: JsonObject): Draft | Ignored {
  const action = needStr(body.action, 'action');
  const check = needObj(body.check_run, 'check_run');
  const eventType = CHECK_RUN_TYPES.get(action);
  if (eventType === undefined) return ignored(`check_run action "${action}" is not mapped`);
  const started = firstTime([[check.started_at, 'check_run.started_at']]);
  const completedAt = firstTime([[check.completed_at, 'check_run.completed_at']]);
  return {
    eventType,
    at: action === 'completed' ? (completedAt ?? started) : started,
    // `output` (title, summary, text, annotations) is tool output: left out (D-36).
    payload: {
      repository: repositoryName(body),
      check_run_id: num(check.id) ?? null,
      name: str(check.name) ?? null,
      status: str(check.status) ?? null,
      conclusion: str(check.conclusion) ?? null,
      head_sha: str(check.head_sha) ?? null,
      app: str(obj(check.app)?.slug) ?? null,
      html_url: str(check.html_url) ?? null,
      duration_seconds: secondsBetween(started, completedAt),
    },
  };
}

const DEPLOYMENT_TYPES = new Map([
  ['success', 'deploy'],
  ['failure', 'deploy'],
  ['error', 'deploy'],
  ['in_progress', 'deploy.started'],
]);
const DEPLOYMENT_WAITING = new Set(['pending', 'queued', 'inactive']);

function mapDeploymentStatus(body: JsonObject): Draft | Ignored {
  const status = needObj(body.deployment_status, 'deployment_status');
  const deployment = needObj(body.deployment, 'deployment');
  const state = needStr(status.state, 'deployment_status.state');
  const eventType = DEPLOYMENT_TYPES.get(state);
  if (eventType === undefined) {
    const why = DEPLOYMENT_WAITING.has(state) ? 'is neither a start nor an outcome' : 'is not mapped';
    return ignored(`deployment state "${state}" ${why}`);
  }
  return {
    eventType,
    at: firstTime([
      [status.updated_at, 'deployment_status.updated_at'],
      [status.created_at, 'deployment_status.created_at'],
    ]),
    // Both `description` fields are free text: left out (D-36).
    payload: {
      repository: repositoryName(body),
      environment: str(status.environment) ?? str(deployment.environment) ?? null,
      state,
      deployment_id: num(deployment.id) ?? null,
      ref: str(deployment.ref) ?? null,
      sha: str(deployment.sha) ?? null,
      creator: login(status.creator) ?? login(deployment.creator),
      // GitHub sends "" for an unset URL.
      target_url: str(status.target_url) || null,
      environment_url: str(status.environment_url) || null,
    },
  };
}

const RELEASE_ACTIONS = new Set(['published', 'released', 'prereleased', 'created']);

function mapRelease(body: JsonObject): Draft | Ignored {
  const action = needStr(body.action, 'action');
  const release = needObj(body.release, 'release');
  if (!RELEASE_ACTIONS.has(action)) return ignored(`release action "${action}" is not mapped`);
  return {
    eventType: `release.${action}`,
    at: firstTime([
      [release.published_at, 'release.published_at'],
      [release.created_at, 'release.created_at'],
    ]),
    // `body` holds the release notes: left out (D-36).
    payload: {
      repository: repositoryName(body),
      tag_name: str(release.tag_name) ?? null,
      name: str(release.name) ?? null,
      prerelease: bool(release.prerelease) ?? false,
      draft: bool(release.draft) ?? false,
      html_url: str(release.html_url) ?? null,
      author: login(release.author),
    },
  };
}

/** A Map, not an object literal, so a header such as `constructor` finds nothing. */
const MAPPERS = new Map<string, EventMapper>([
  ['push', mapPush],
  ['pull_request', mapPullRequest],
  ['workflow_run', mapWorkflowRun],
  ['check_run', mapCheckRun],
  ['deployment_status', mapDeploymentStatus],
  ['release', mapRelease],
]);
