import { findSecrets, MAX_EXTERNAL_ID_LENGTH, MAX_PAYLOAD_BYTES, payloadBytes, SLUG_PATTERN } from '@worktrack/contracts';
import { FIXTURE_TOKEN, loadFixture, patchFixture } from '../../test/fixtures/fixtures';
import { MappedEvent, MappingOutcome } from '../mapping/mapped-event';
import { mapGithubDelivery } from './github.mapper';

const deliveryId = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
const receivedAt = new Date('2026-05-16T00:00:00.000Z');
const REPO = 'acme-corp/worktrack-api';
const HEAD_SHA = 'c4b1a9e8d7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2';

const fixture = (name: string): unknown => loadFixture('github', name).json;
const patch = (name: string, changes: Record<string, unknown>): unknown => patchFixture('github', name, changes);
const map = (event: string, body: unknown, account: string | null = null): MappingOutcome =>
  mapGithubDelivery({ event, deliveryId, body, account, receivedAt });
const single = (outcome: MappingOutcome): MappedEvent => {
  if (outcome.kind !== 'mapped') throw new Error(`expected a mapped outcome, got ${JSON.stringify(outcome)}`);
  expect(outcome.events).toHaveLength(1);
  return outcome.events[0];
};
const mapOne = (event: string, body: unknown, account: string | null = null): MappedEvent => single(map(event, body, account));

describe('mapGithubDelivery', () => {
  describe('push', () => {
    it('maps a push to one event of metadata, timed by the push (repository.pushed_at), not the head commit', () => {
      expect(mapOne('push', fixture('push'))).toEqual({
        sourceType: 'github',
        eventType: 'push',
        occurredAt: '2026-05-14T08:22:11.000Z',
        externalId: `${deliveryId}:0`,
        payload: {
          repository: REPO,
          ref: 'refs/heads/feature/connectors',
          before: '0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b',
          after: HEAD_SHA,
          commit_count: 3,
          distinct_commit_count: 2,
          forced: false,
          created: false,
          deleted: false,
          compare_url: 'https://github.com/acme-corp/worktrack-api/compare/0a9b8c7d6e5f...c4b1a9e8d7f6',
          pusher: 'octo-dev',
          head_commit_id: HEAD_SHA,
          head_commit: { id: HEAD_SHA, timestamp: '2026-05-14T11:02:11+02:00', author: 'octo-dev', distinct: true },
          commit_ids: ['5f3c1d0b7e2a4c8d9e1f0a2b3c4d5e6f7a8b9c0d', '8d2e4f6a1b3c5d7e9f0a1b2c3d4e5f6a7b8c9d0e', HEAD_SHA],
        },
      });
    });

    it('keeps a rebased push at its push time although the head commit was authored days before', () => {
      const event = mapOne('push', patch('push', { 'head_commit.timestamp': '2026-05-01T09:00:00Z' }));
      expect(event.occurredAt).toBe('2026-05-14T08:22:11.000Z');
    });

    it('stays bounded for a huge push: counts, the head commit, at most 20 commit ids', () => {
      const commits = Array.from({ length: 2_000 }, (_, i) => ({
        id: i.toString(16).padStart(40, '0'),
        distinct: true,
        message: FIXTURE_TOKEN,
      }));
      const event = mapOne('push', patch('push', { commits }));
      expect(event.payload).toMatchObject({ commit_count: 2_000, distinct_commit_count: 2_000 });
      expect(event.payload.commit_ids).toHaveLength(20);
      expect(JSON.stringify(event.payload).length).toBeLessThan(3_000);
    });

    it('keeps commit messages and author emails out (D-36)', () => {
      const json = JSON.stringify(mapOne('push', fixture('push')).payload);
      expect(json).not.toContain('Rotate the CI deploy token');
      expect(json).not.toContain('Map pull_request actions');
      expect(json).not.toContain('@acme.example');
      expect(json).not.toContain('noreply@github.com');
    });

    it('falls back to repository.pushed_at (unix seconds) when a deleted branch has no head commit', () => {
      const event = mapOne('push', patch('push', { head_commit: null, commits: [], deleted: true, after: '0'.repeat(40) }));
      expect(event.occurredAt).toBe('2026-05-14T08:22:11.000Z');
      expect(event.payload).toMatchObject({
        commit_count: 0,
        distinct_commit_count: 0,
        deleted: true,
        head_commit_id: null,
        head_commit: null,
      });
    });

    it('reads an ISO repository.pushed_at too, and uses the receipt time when there is no time at all', () => {
      expect(mapOne('push', patch('push', { head_commit: null, 'repository.pushed_at': '2026-05-14T08:30:00Z' })).occurredAt).toBe(
        '2026-05-14T08:30:00.000Z',
      );
      expect(mapOne('push', patch('push', { head_commit: null, 'repository.pushed_at': undefined })).occurredAt).toBe(
        receivedAt.toISOString(),
      );
    });

    it('names the pusher by the sender login when pusher is absent', () => {
      expect(mapOne('push', patch('push', { pusher: undefined })).payload.pusher).toBe('octo-dev');
    });
  });

  describe('pull_request', () => {
    it('maps opened with the PR metadata, timed by created_at, without the body', () => {
      const event = mapOne('pull_request', fixture('pull_request.opened'));
      expect(event).toEqual({
        sourceType: 'github',
        eventType: 'pull_request.opened',
        occurredAt: '2026-05-14T09:05:12.000Z',
        externalId: `${deliveryId}:0`,
        payload: {
          repository: REPO,
          number: 42,
          title: 'Add GitHub and Slack webhook connectors',
          state: 'open',
          draft: false,
          merged: false,
          author: 'octo-dev',
          head_ref: 'feature/connectors',
          base_ref: 'main',
          additions: 412,
          deletions: 18,
          changed_files: 9,
          commits: 3,
          html_url: 'https://github.com/acme-corp/worktrack-api/pull/42',
        },
      });
      expect(JSON.stringify(event.payload)).not.toContain('Closes #17');
    });

    it('maps closed with merged=true to pull_request.merged at merged_at', () => {
      const event = mapOne('pull_request', fixture('pull_request.closed-merged'));
      expect(event.eventType).toBe('pull_request.merged');
      expect(event.occurredAt).toBe('2026-05-15T14:31:08.000Z');
      expect(event.payload).toMatchObject({ state: 'closed', merged: true, commits: 4, additions: 436, deletions: 21, changed_files: 10 });
    });

    it('maps closed without merging to pull_request.closed at closed_at', () => {
      const body = patch('pull_request.closed-merged', {
        'pull_request.merged': false,
        'pull_request.merged_at': null,
        'pull_request.closed_at': '2026-05-15T13:00:00Z',
      });
      const event = mapOne('pull_request', body);
      expect(event.eventType).toBe('pull_request.closed');
      expect(event.occurredAt).toBe('2026-05-15T13:00:00.000Z');
      expect(event.payload.merged).toBe(false);
    });

    it.each(['reopened', 'ready_for_review', 'converted_to_draft', 'synchronize'])('maps %s at updated_at', (action) => {
      const body = patch('pull_request.opened', { action, 'pull_request.updated_at': '2026-05-14T10:11:12Z' });
      const event = mapOne('pull_request', body);
      expect(event.eventType).toBe(`pull_request.${action}`);
      expect(event.occurredAt).toBe('2026-05-14T10:11:12.000Z');
    });

    it('maps review_requested with the requested reviewer (a user or a team)', () => {
      const user = patch('pull_request.opened', {
        action: 'review_requested',
        requested_reviewer: { login: 'reviewer-rae', id: 61734402 },
      });
      expect(mapOne('pull_request', user)).toMatchObject({
        eventType: 'pull_request.review_requested',
        payload: { requested_reviewer: 'reviewer-rae' },
      });
      const team = patch('pull_request.opened', { action: 'review_requested', requested_team: { slug: 'platform', id: 12 } });
      expect(mapOne('pull_request', team).payload.requested_reviewer).toBe('platform');
    });

    it('ignores edited (not meaningful) and unmapped actions', () => {
      expect(map('pull_request', patch('pull_request.opened', { action: 'edited' }))).toEqual({
        kind: 'ignored',
        reason: 'pull_request.edited is not meaningful activity',
      });
      expect(map('pull_request', patch('pull_request.opened', { action: 'labeled' }))).toEqual({
        kind: 'ignored',
        reason: 'pull_request action "labeled" is not mapped',
      });
    });

    it('drops a title that holds a secret rather than let the delivery be refused (D-18)', () => {
      const body = patch('pull_request.opened', { 'pull_request.title': `use ${FIXTURE_TOKEN} for now` });
      const event = mapOne('pull_request', body);
      expect(event.payload.title).toBeNull();
      expect(findSecrets(event.payload)).toEqual([]);
    });
  });

  describe('workflow_run', () => {
    it('maps completed to ci.run.completed with its duration, without display_title or head_commit', () => {
      const event = mapOne('workflow_run', fixture('workflow_run.completed'));
      expect(event).toEqual({
        sourceType: 'github',
        eventType: 'ci.run.completed',
        occurredAt: '2026-05-14T09:09:47.000Z',
        externalId: `${deliveryId}:0`,
        payload: {
          provider: 'github_actions',
          repository: REPO,
          workflow: 'CI',
          run_id: 15012345678,
          run_number: 318,
          run_attempt: 1,
          event: 'push',
          status: 'completed',
          conclusion: 'success',
          head_branch: 'feature/connectors',
          head_sha: HEAD_SHA,
          html_url: 'https://github.com/acme-corp/worktrack-api/actions/runs/15012345678',
          duration_seconds: 447,
        },
      });
    });

    it('maps requested at created_at and in_progress at run_started_at, without a duration', () => {
      const requested = patch('workflow_run.completed', {
        action: 'requested',
        'workflow_run.status': 'queued',
        'workflow_run.conclusion': null,
        'workflow_run.created_at': '2026-05-14T09:02:19Z',
        'workflow_run.run_started_at': '2026-05-14T09:02:25Z',
      });
      expect(mapOne('workflow_run', requested)).toMatchObject({
        eventType: 'ci.run.requested',
        occurredAt: '2026-05-14T09:02:19.000Z',
        payload: { status: 'queued', conclusion: null, duration_seconds: null },
      });
      const started = patch('workflow_run.completed', {
        action: 'in_progress',
        'workflow_run.status': 'in_progress',
        'workflow_run.run_started_at': '2026-05-14T09:02:25Z',
      });
      expect(mapOne('workflow_run', started)).toMatchObject({
        eventType: 'ci.run.started',
        occurredAt: '2026-05-14T09:02:25.000Z',
        payload: { duration_seconds: null },
      });
    });

    it('ignores other actions', () => {
      expect(map('workflow_run', patch('workflow_run.completed', { action: 'waiting' }))).toEqual({
        kind: 'ignored',
        reason: 'workflow_run action "waiting" is not mapped',
      });
    });
  });

  describe('check_run', () => {
    it('maps completed to ci.check.completed with its duration, without the check output', () => {
      const event = mapOne('check_run', fixture('check_run.completed'));
      expect(event).toEqual({
        sourceType: 'github',
        eventType: 'ci.check.completed',
        occurredAt: '2026-05-14T09:04:02.000Z',
        externalId: `${deliveryId}:0`,
        payload: {
          repository: REPO,
          check_run_id: 42012345678,
          name: 'lint',
          status: 'completed',
          conclusion: 'failure',
          head_sha: HEAD_SHA,
          app: 'github-actions',
          html_url: 'https://github.com/acme-corp/worktrack-api/actions/runs/15012345678/job/42012345678',
          duration_seconds: 91,
        },
      });
      expect(JSON.stringify(event.payload)).not.toContain('lint failed');
    });

    it('maps created to ci.check.started at started_at', () => {
      const body = patch('check_run.completed', {
        action: 'created',
        'check_run.status': 'in_progress',
        'check_run.conclusion': null,
        'check_run.completed_at': null,
      });
      expect(mapOne('check_run', body)).toMatchObject({
        eventType: 'ci.check.started',
        occurredAt: '2026-05-14T09:02:31.000Z',
        payload: { status: 'in_progress', conclusion: null, duration_seconds: null },
      });
    });

    it.each(['rerequested', 'requested_action'])('ignores %s', (action) => {
      expect(map('check_run', patch('check_run.completed', { action }))).toEqual({
        kind: 'ignored',
        reason: `check_run action "${action}" is not mapped`,
      });
    });
  });

  describe('deployment_status', () => {
    it('maps success to deploy, timed by the status, without either description', () => {
      const event = mapOne('deployment_status', fixture('deployment_status.success'));
      expect(event).toEqual({
        sourceType: 'github',
        eventType: 'deploy',
        occurredAt: '2026-05-15T14:46:31.000Z',
        externalId: `${deliveryId}:0`,
        payload: {
          repository: REPO,
          environment: 'production',
          state: 'success',
          deployment_id: 1987654321,
          ref: 'main',
          sha: 'e7f6d5c4b3a291807f6e5d4c3b2a19087f6e5d4c',
          creator: 'octo-dev',
          target_url: 'https://github.com/acme-corp/worktrack-api/actions/runs/15012399999',
          environment_url: 'https://api.worktrack.example',
        },
      });
      expect(JSON.stringify(event.payload)).not.toMatch(/Deploy(ed)? with|rotated/);
    });

    it.each(['failure', 'error'])('maps %s to deploy carrying the state', (state) => {
      expect(mapOne('deployment_status', patch('deployment_status.success', { 'deployment_status.state': state }))).toMatchObject({
        eventType: 'deploy',
        payload: { state },
      });
    });

    it('maps in_progress to deploy.started, falling back to created_at, and an empty URL to null', () => {
      const body = patch('deployment_status.success', {
        'deployment_status.state': 'in_progress',
        'deployment_status.updated_at': undefined,
        'deployment_status.environment_url': '',
      });
      expect(mapOne('deployment_status', body)).toMatchObject({
        eventType: 'deploy.started',
        occurredAt: '2026-05-15T14:46:30.000Z',
        payload: { state: 'in_progress', environment_url: null },
      });
    });

    it.each(['pending', 'queued', 'inactive'])('ignores %s, naming the state', (state) => {
      expect(map('deployment_status', patch('deployment_status.success', { 'deployment_status.state': state }))).toEqual({
        kind: 'ignored',
        reason: `deployment state "${state}" is neither a start nor an outcome`,
      });
    });
  });

  describe('release', () => {
    it('maps published with the release metadata, without the notes', () => {
      const event = mapOne('release', fixture('release.published'));
      expect(event).toEqual({
        sourceType: 'github',
        eventType: 'release.published',
        occurredAt: '2026-05-15T14:52:17.000Z',
        externalId: `${deliveryId}:0`,
        payload: {
          repository: REPO,
          tag_name: 'v1.4.0',
          name: 'v1.4.0 — webhook connectors',
          prerelease: false,
          draft: false,
          html_url: 'https://github.com/acme-corp/worktrack-api/releases/tag/v1.4.0',
          author: 'octo-dev',
        },
      });
    });

    it.each(['released', 'prereleased', 'created'])('maps %s', (action) => {
      expect(mapOne('release', patch('release.published', { action })).eventType).toBe(`release.${action}`);
    });

    it('times an unpublished release by created_at', () => {
      const body = patch('release.published', { action: 'created', 'release.published_at': null, 'release.draft': true });
      expect(mapOne('release', body)).toMatchObject({ occurredAt: '2026-05-15T14:39:50.000Z', payload: { draft: true } });
    });

    it.each(['edited', 'deleted', 'unpublished'])('ignores %s', (action) => {
      expect(map('release', patch('release.published', { action }))).toEqual({
        kind: 'ignored',
        reason: `release action "${action}" is not mapped`,
      });
    });
  });

  describe('other deliveries', () => {
    it('acknowledges ping', () => {
      expect(map('ping', fixture('ping'))).toEqual({ kind: 'ignored', reason: 'ping: the webhook is connected' });
      expect(map('ping', fixture('ping'), 'someone-else')).toEqual({ kind: 'ignored', reason: 'ping: the webhook is connected' });
    });

    it.each(['issues', 'constructor', 'toString', '__proto__'])('ignores the unmapped event "%s"', (event) => {
      expect(map(event, fixture('issues.opened'))).toEqual({ kind: 'ignored', reason: `github event "${event}" is not mapped` });
    });
  });

  describe('the connected account', () => {
    it('maps a sender matching the account case-insensitively', () => {
      expect(mapOne('push', fixture('push'), 'Octo-Dev').eventType).toBe('push');
    });

    it("ignores another sender's delivery, naming the sender", () => {
      expect(map('push', fixture('push'), 'reviewer-rae')).toEqual({
        kind: 'ignored',
        reason: 'sender "octo-dev" is not the connected account reviewer-rae',
      });
    });

    it('ignores a delivery without a sender when an account is connected, and maps it when none is', () => {
      const body = patch('release.published', { sender: undefined });
      expect(map('release', body, 'octo-dev')).toEqual({
        kind: 'ignored',
        reason: "the delivery names no sender, so it is not octo-dev's activity",
      });
      expect(mapOne('release', body, null).eventType).toBe('release.published');
    });
  });

  describe('malformed deliveries', () => {
    it.each([null, [], 'push', 42])('refuses a body that is not an object (%p)', (body) => {
      expect(map('push', body)).toEqual({ kind: 'invalid', reason: 'the body is missing or not an object' });
    });

    it.each<[string, string, Record<string, unknown>, string]>([
      ['push', 'push', { ref: undefined }, 'ref is missing or not a string'],
      ['push', 'push', { repository: undefined }, 'repository is missing or not an object'],
      ['push', 'push', { 'repository.full_name': 7 }, 'repository.full_name is missing or not a string'],
      ['push', 'push', { 'repository.pushed_at': 'yesterday' }, 'repository.pushed_at is not a timestamp'],
      ['push', 'push', { head_commit: null, 'repository.pushed_at': -5 }, 'repository.pushed_at is not a timestamp'],
      ['pull_request', 'pull_request.opened', { action: undefined }, 'action is missing or not a string'],
      ['pull_request', 'pull_request.opened', { pull_request: undefined }, 'pull_request is missing or not an object'],
      [
        'pull_request',
        'pull_request.opened',
        { 'pull_request.created_at': '2026-05-14 09:05' },
        'pull_request.created_at is not a timestamp',
      ],
      ['workflow_run', 'workflow_run.completed', { workflow_run: 'CI' }, 'workflow_run is missing or not an object'],
      ['workflow_run', 'workflow_run.completed', { 'workflow_run.updated_at': 'soon' }, 'workflow_run.updated_at is not a timestamp'],
      ['check_run', 'check_run.completed', { check_run: undefined }, 'check_run is missing or not an object'],
      ['deployment_status', 'deployment_status.success', { deployment: undefined }, 'deployment is missing or not an object'],
      [
        'deployment_status',
        'deployment_status.success',
        { 'deployment_status.state': undefined },
        'deployment_status.state is missing or not a string',
      ],
      ['release', 'release.published', { release: null }, 'release is missing or not an object'],
    ])('refuses %s (%s) with %j: %s', (event, name, changes, reason) => {
      expect(map(event, patch(name, changes))).toEqual({ kind: 'invalid', reason });
    });

    it('refuses an empty or over-long delivery id, so the external id stays within 256 characters', () => {
      const reason = 'the X-GitHub-Delivery id is empty or too long';
      expect(mapGithubDelivery({ event: 'push', deliveryId: '', body: fixture('push'), account: null, receivedAt })).toEqual({
        kind: 'invalid',
        reason,
      });
      const tooLong = 'd'.repeat(MAX_EXTERNAL_ID_LENGTH - 7);
      expect(mapGithubDelivery({ event: 'push', deliveryId: tooLong, body: fixture('push'), account: null, receivedAt })).toEqual({
        kind: 'invalid',
        reason,
      });
      const longest = 'd'.repeat(MAX_EXTERNAL_ID_LENGTH - 8);
      const event = single(mapGithubDelivery({ event: 'push', deliveryId: longest, body: fixture('push'), account: null, receivedAt }));
      expect(event.externalId).toBe(`${longest}:0`);
      expect(event.externalId.length).toBeLessThanOrEqual(MAX_EXTERNAL_ID_LENGTH);
    });
  });

  describe('time (D-19)', () => {
    it('clamps a provider time more than 10 minutes ahead of receipt to the receipt time', () => {
      const ahead = new Date(receivedAt.getTime() + 10 * 60_000 + 1000).toISOString();
      expect(mapOne('push', patch('push', { 'repository.pushed_at': ahead })).occurredAt).toBe('2026-05-16T00:00:00.000Z');
    });

    it('keeps a provider time exactly 10 minutes ahead', () => {
      expect(mapOne('push', patch('push', { 'repository.pushed_at': '2026-05-16T02:10:00+02:00' })).occurredAt).toBe(
        '2026-05-16T00:10:00.000Z',
      );
    });
  });

  describe('every mapped delivery (D-18, D-36)', () => {
    const cases: Array<[string, string, unknown]> = [
      ['push', 'push', fixture('push')],
      ['pull_request', 'pull_request.opened', fixture('pull_request.opened')],
      ['pull_request', 'pull_request.closed-merged', fixture('pull_request.closed-merged')],
      [
        'pull_request',
        'review_requested',
        patch('pull_request.opened', { action: 'review_requested', requested_reviewer: { login: 'reviewer-rae' } }),
      ],
      ['workflow_run', 'workflow_run.completed', fixture('workflow_run.completed')],
      ['workflow_run', 'workflow_run.requested', patch('workflow_run.completed', { action: 'requested' })],
      ['check_run', 'check_run.completed', fixture('check_run.completed')],
      ['check_run', 'check_run.created', patch('check_run.completed', { action: 'created' })],
      ['deployment_status', 'deployment_status.success', fixture('deployment_status.success')],
      [
        'deployment_status',
        'deployment_status.in_progress',
        patch('deployment_status.success', { 'deployment_status.state': 'in_progress' }),
      ],
      ['release', 'release.published', fixture('release.published')],
    ];

    it.each(cases)('%s (%s) is a valid, secret-free ActivityEvent of metadata', (event, _name, body) => {
      const raw = JSON.stringify(body);
      expect(raw).toContain(FIXTURE_TOKEN); // the fixture does carry the secret…
      const mapped = mapOne(event, body, 'octo-dev');
      const json = JSON.stringify(mapped.payload);
      expect(json).not.toContain(FIXTURE_TOKEN); // …and the payload does not
      expect(json).not.toContain('Rotate the CI deploy token');
      expect(json).not.toContain('@acme.example');
      expect(findSecrets(mapped.payload)).toEqual([]);
      expect(mapped.eventType).toMatch(SLUG_PATTERN);
      expect(payloadBytes(mapped.payload)).toBeLessThan(MAX_PAYLOAD_BYTES);
      expect(mapped.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(mapped.externalId).toBe(`${deliveryId}:0`);
      expect(mapped.sourceType).toBe('github');
      for (const key of Object.keys(mapped.payload)) expect(key).toMatch(/^[a-z][a-z0-9_]*$/);
    });
  });
});
