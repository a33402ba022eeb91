import { EventLinkV1, EventsLinked, EventsStored, SessionChanged, StoredEventRefV1, type EventsLinkedV1 } from '@worktrack/contracts';
import { outboxRowViolation } from './outbox-check';
import { jsonArrayParamSql, jsonArraySql, jsonObjectSql, outboxInsertSql, outboxNotifySql, type PayloadSql } from './outbox-sql';
import { outboxChannel } from './outbox-table';

const links = (): PayloadSql<EventsLinkedV1> => ({
  memberId: 'l.member',
  links: jsonArraySql(EventLinkV1, { eventId: 'l.event_id', sessionId: 'l.session_id', version: 'l.link_version' }, 'l.event_id'),
});

describe('outbox rows built from their contract', () => {
  it('writes the contract topic, type and version, and a payload with exactly its properties', () => {
    const sql = outboxInsertSql(EventsLinked, {
      schema: 'correlation',
      key: 'l.member',
      messageId: 'gen_random_uuid()',
      requestId: 'p_request_id',
      payload: links(),
      from: 'FROM linked l GROUP BY l.member',
    });
    expect(sql).toContain('INSERT INTO "correlation".outbox (topic, key, type, version, message_id, request_id, payload, traceparent)');
    // No traceparent expression given: the row carries none.
    expect(sql).toMatch(/ORDER BY l\.event_id\)\), NULL\n/);
    expect(sql).toContain(`SELECT 'correlationLinks', l.member, 'correlation.events.linked', 1, gen_random_uuid(), p_request_id,`);
    expect(sql).toContain(
      `jsonb_build_object('memberId', l.member, 'links', jsonb_agg(jsonb_build_object('eventId', l.event_id, 'sessionId', l.session_id, 'version', l.link_version) ORDER BY l.event_id))`,
    );
    expect(sql).toMatch(/FROM linked l GROUP BY l\.member\s+RETURNING id$/);
  });

  it('refuses a payload that misses a required property or names one the contract does not have', () => {
    expect(() => jsonObjectSql(StoredEventRefV1, { eventId: 'f.id' } as unknown as PayloadSql<StoredEventRefV1>)).toThrow(
      'StoredEventRefV1.occurredAt is required and has no SQL expression',
    );
    expect(() =>
      jsonObjectSql(StoredEventRefV1, { eventId: 'f.id', occurredAt: 'f.oc', at: 'f.at' } as unknown as PayloadSql<StoredEventRefV1>),
    ).toThrow('StoredEventRefV1 has no property "at"');
  });

  it('leaves an optional property out when no expression is given', () => {
    const sql = jsonObjectSql(EventsStored.payload, {
      memberId: '$1',
      workspaceId: '$2',
      events: jsonArraySql(StoredEventRefV1, { eventId: 'f.id', occurredAt: 'f.oc' }, 'f.n'),
    });
    expect(sql).not.toContain('replay');
  });

  it('takes an array given as a parameter whole when every row was written, else the elements of the written rows in order', () => {
    const sql = jsonArrayParamSql(StoredEventRefV1, {
      param: '$9::jsonb',
      id: 'eventId',
      idType: 'uuid',
      written: 'count(*)',
      rows: 'SELECT id FROM fresh',
    });
    expect(sql).toContain('CASE WHEN count(*) = jsonb_array_length($9::jsonb) THEN $9::jsonb');
    expect(sql).toContain(`(SELECT jsonb_agg(e.v ORDER BY e.n) FROM jsonb_array_elements($9::jsonb) WITH ORDINALITY AS e(v, n)`);
    expect(sql).toContain(`WHERE (e.v->>'eventId')::uuid IN (SELECT id FROM fresh)) END`);
    expect(() =>
      jsonArrayParamSql(StoredEventRefV1, { param: '$9', id: 'at' as 'eventId', idType: 'uuid', written: 'count(*)', rows: '' }),
    ).toThrow('StoredEventRefV1 has no property "at"');
  });

  it("wakes the schema's relay on its own channel", () => {
    expect(outboxNotifySql('sessions')).toBe(`pg_notify('${outboxChannel('sessions')}', '')`);
  });
});

describe('outboxRowViolation', () => {
  const changed = {
    change: 'created',
    sessionId: '0193a5b0-0000-7000-8000-000000000001',
    memberId: '0193a5b0-0000-7000-8000-000000000002',
    workspaceId: '0193a5b0-0000-7000-8000-000000000003',
    source: 'timer',
    state: 'active',
    startedAt: '2026-11-27T08:00:00.000Z',
    closedAt: null,
    closedReason: null,
    revision: 1,
    changedAt: '2026-11-27T08:00:00.000Z',
  };
  const row = (payload: unknown, over: Partial<{ topic: string; type: string; version: number }> = {}) => ({
    topic: SessionChanged.topic,
    type: SessionChanged.type,
    version: SessionChanged.version,
    payload,
    ...over,
  });

  it('accepts a row that matches its contract', () => {
    expect(outboxRowViolation(row(changed))).toBeUndefined();
  });

  it('names what is wrong with a row that does not', () => {
    expect(outboxRowViolation(row({ ...changed, startedAt: 'yesterday' }))).toMatch(/startedAt/);
    expect(outboxRowViolation(row({ ...changed, extra: 1 }))).toMatch(/extra/);
    expect(outboxRowViolation(row(changed, { version: 9 }))).toBe(`no contract ${SessionChanged.type} v9`);
    expect(outboxRowViolation(row(changed, { topic: 'plateCommands' }))).toMatch(/topic plateCommands/);
  });
});
