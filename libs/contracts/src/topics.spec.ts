import { allTopics, topicName, Topics } from './topics';
import { SERVICE_NAMES, ServiceCommandTopic, StatusQuery } from './system/status.query';

describe('topic registry', () => {
  it('has unique, well-formed names and sane settings', () => {
    const names = allTopics().map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const t of allTopics()) {
      expect(t.name).toMatch(/^[a-z]+(\.[a-z-]+)+$/);
      expect(t.partitions).toBeGreaterThan(0);
      expect(t.retentionMs === -1 || t.retentionMs > 0).toBe(true);
      expect(t.description.length).toBeGreaterThan(10);
    }
  });

  it('gives every service a command topic and a status contract on it', () => {
    for (const service of SERVICE_NAMES) {
      const key = ServiceCommandTopic[service];
      expect(Topics[key].name).toBe(`${service}.commands`);
      expect(StatusQuery[service]).toMatchObject({ type: 'system.status.query', version: 1, topic: key });
    }
  });

  it('keeps the member log forever, one latest state per member (projections rebuild from it)', () => {
    expect(Topics.identityMembers).toMatchObject({ name: 'identity.members', retentionMs: -1, cleanupPolicy: 'compact' });
    expect(allTopics().filter((t) => t.cleanupPolicy === 'compact')).toEqual([Topics.identityMembers, Topics.identityTokens]);
  });

  it('prefixes physical names per deployment', () => {
    expect(topicName(Topics.gatewayReplies, 'run1.')).toBe('run1.gateway.replies');
    expect(topicName(Topics.gatewayReplies)).toBe('gateway.replies');
  });
});
