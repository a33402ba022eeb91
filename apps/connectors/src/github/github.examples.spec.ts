import webhookExamples from '@octokit/webhooks-examples';
import { findSecrets, payloadBytes } from '@worktrack/contracts';
import { mapGithubDelivery } from './github.mapper';

/**
 * GitHub's own published example payloads (`@octokit/webhooks-examples`,
 * generated from GitHub's webhook documentation) for every event the
 * connector subscribes to, every action in them: each maps or is
 * ignored with a reason, never refused as invalid; what is stored is bounded
 * metadata; a push is timed by the push itself.
 */
const HANDLED = ['push', 'pull_request', 'workflow_run', 'check_run', 'deployment_status', 'release', 'ping'] as const;
const receivedAt = new Date('2030-01-01T00:00:00.000Z');

interface Example {
  name: string;
  examples: Array<Record<string, unknown>>;
}
const examples = (webhookExamples as unknown as Example[]).filter((e) => (HANDLED as readonly string[]).includes(e.name));
const cases = examples.flatMap((e) =>
  e.examples.map(
    (body, index) => [`${e.name}${typeof body.action === 'string' ? `.${body.action}` : ''} #${index}`, e.name, body] as const,
  ),
);

describe('mapGithubDelivery on GitHub published examples (@octokit/webhooks-examples)', () => {
  it('covers every handled event', () => {
    expect(new Set(examples.map((e) => e.name))).toEqual(new Set(HANDLED));
    expect(cases.length).toBeGreaterThan(60);
  });

  it.each(cases)('%s maps or is ignored with a reason, never invalid', (_label, event, body) => {
    const outcome = mapGithubDelivery({ event, deliveryId: 'd6a8b0a0-0000-4000-8000-000000000001', body, account: null, receivedAt });
    expect(outcome.kind).not.toBe('invalid');
    if (outcome.kind === 'ignored') {
      expect(outcome.reason.length).toBeGreaterThan(0);
      return;
    }
    expect(outcome.kind).toBe('mapped');
    if (outcome.kind !== 'mapped') return;
    for (const e of outcome.events) {
      expect(e.sourceType).toBe('github');
      expect(Number.isNaN(Date.parse(e.occurredAt))).toBe(false);
      expect(payloadBytes(e.payload)).toBeLessThan(4_096);
      expect(findSecrets(e.payload)).toEqual([]);
    }
  });

  it.each(cases.filter(([, event]) => event === 'push'))('%s is timed by repository.pushed_at', (_label, _event, body) => {
    const outcome = mapGithubDelivery({
      event: 'push',
      deliveryId: 'd6a8b0a0-0000-4000-8000-000000000002',
      body,
      account: null,
      receivedAt,
    });
    if (outcome.kind !== 'mapped') throw new Error(`expected mapped, got ${JSON.stringify(outcome)}`);
    const pushedAt = (body.repository as { pushed_at: number }).pushed_at;
    expect(outcome.events[0].occurredAt).toBe(new Date(pushedAt * 1000).toISOString());
  });

  it('maps the actions the connector is documented to map (not everything ignored)', () => {
    const mapped = new Set(
      cases
        .filter(([, event, body]) => mapGithubDelivery({ event, deliveryId: 'x-1', body, account: null, receivedAt }).kind === 'mapped')
        .map(([label]) => label.replace(/ #\d+$/, '')),
    );
    for (const label of [
      'push',
      'pull_request.opened',
      'pull_request.closed',
      'workflow_run.completed',
      'check_run.completed',
      'release.published',
    ]) {
      expect(mapped).toContain(label);
    }
  });
});
