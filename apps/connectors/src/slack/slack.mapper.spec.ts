import { findSecrets, MAX_EXTERNAL_ID_LENGTH, MAX_PAYLOAD_BYTES, payloadBytes, SLUG_PATTERN } from '@worktrack/contracts';
import { FIXTURE_TOKEN, loadFixture, patchFixture } from '../../test/fixtures/fixtures';
import { MappedEvent } from '../mapping/mapped-event';
import { mapSlackEnvelope, SlackOutcome } from './slack.mapper';

const receivedAt = new Date('2026-05-14T09:15:00.000Z');
const ME = 'U04QX8M2N7K';
const OTHER = 'U05B2Z9LMPQ';
const CHANNEL = 'C06ENG1NEER';

const fixture = (name: string): unknown => loadFixture('slack', name).json;
const patch = (name: string, changes: Record<string, unknown>): unknown => patchFixture('slack', name, changes);
const map = (body: unknown, account: string | null = null): SlackOutcome => mapSlackEnvelope({ body, account, receivedAt });
const mapOne = (body: unknown, account: string | null = null): MappedEvent => {
  const outcome = map(body, account);
  if (outcome.kind !== 'mapped') throw new Error(`expected a mapped outcome, got ${JSON.stringify(outcome)}`);
  expect(outcome.events).toHaveLength(1);
  return outcome.events[0];
};
const deletedMessage = (): unknown =>
  patch('message_changed', {
    'event.subtype': 'message_deleted',
    'event.message': undefined,
    'event.deleted_ts': '1778749320.512109',
    'event.ts': '1778749950.000700',
    'event.event_ts': '1778749950.000700',
  });

describe('mapSlackEnvelope', () => {
  describe('envelopes', () => {
    it('answers url_verification with the challenge', () => {
      expect(map(fixture('url_verification'))).toEqual({
        kind: 'url_verification',
        challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      });
    });

    it('refuses url_verification without a challenge', () => {
      expect(map(patch('url_verification', { challenge: undefined }))).toEqual({
        kind: 'invalid',
        reason: 'challenge is missing or not a string',
      });
    });

    it('acknowledges app_rate_limited and unknown envelope types', () => {
      expect(map(fixture('app_rate_limited'))).toEqual({
        kind: 'ignored',
        reason: 'app_rate_limited: Slack is withholding events from this app for the current minute',
      });
      expect(map({ type: 'interactive_message' })).toEqual({
        kind: 'ignored',
        reason: 'slack envelope "interactive_message" is not mapped',
      });
    });
  });

  describe('message', () => {
    it('maps a channel message to counts, never the text (D-36)', () => {
      const event = mapOne(fixture('message'));
      expect(event).toEqual({
        sourceType: 'slack',
        eventType: 'chat.message',
        occurredAt: '2026-05-14T09:02:00.512Z',
        externalId: 'Ev07U1A2B3C4',
        payload: {
          channel: CHANNEL,
          channel_type: 'channel',
          user: ME,
          ts: '1778749320.512109',
          thread_ts: null,
          is_thread_reply: false,
          character_count: 121,
          file_count: 0,
          has_attachments: false,
          mention_count: 2,
        },
      });
      expect(JSON.stringify(event.payload)).not.toContain('staging token');
    });

    it('marks a thread reply', () => {
      expect(mapOne(fixture('message.thread_reply'))).toMatchObject({
        eventType: 'chat.message',
        occurredAt: '2026-05-14T09:06:51.104Z',
        externalId: 'Ev07U1A2B3C5',
        payload: { ts: '1778749611.104229', thread_ts: '1778749320.512109', is_thread_reply: true, mention_count: 0, character_count: 65 },
      });
    });

    it('does not mark a thread parent (thread_ts = ts) as a reply', () => {
      const body = patch('message', { 'event.thread_ts': '1778749320.512109', 'event.reply_count': 1 });
      expect(mapOne(body).payload).toMatchObject({ thread_ts: '1778749320.512109', is_thread_reply: false });
    });

    it('maps thread_broadcast as a thread reply', () => {
      const body = patch('message.thread_reply', { 'event.subtype': 'thread_broadcast' });
      expect(mapOne(body)).toMatchObject({ eventType: 'chat.message', payload: { is_thread_reply: true } });
    });

    it('counts files and notes attachments without reading either', () => {
      const body = patch('message', {
        'event.subtype': 'file_share',
        'event.files': [
          { id: 'F07ABC', name: 'secrets.env', title: FIXTURE_TOKEN },
          { id: 'F07ABD', name: 'diagram.png' },
        ],
        'event.attachments': [{ fallback: FIXTURE_TOKEN, text: FIXTURE_TOKEN }],
        'event.text': 'no mentions here',
      });
      expect(mapOne(body).payload).toMatchObject({ file_count: 2, has_attachments: true, mention_count: 0, character_count: 16 });
    });

    it('maps message_changed to chat.message.edited with the edited ts, never the old or new text', () => {
      const event = mapOne(fixture('message_changed'));
      expect(event).toEqual({
        sourceType: 'slack',
        eventType: 'chat.message.edited',
        occurredAt: '2026-05-14T09:03:22.001Z',
        externalId: 'Ev07U1A2B3D9',
        payload: {
          channel: CHANNEL,
          channel_type: 'channel',
          user: ME,
          ts: '1778749320.512109',
          thread_ts: null,
          edited_ts: '1778749402.000000',
        },
      });
    });

    it('ignores message_changed without an edit marker (a link unfurl)', () => {
      expect(map(patch('message_changed', { 'event.message.edited': undefined }))).toEqual({
        kind: 'ignored',
        reason: 'message_changed without "edited" is an unfurl or a thread update, not an edit',
      });
    });

    it("maps message_deleted to chat.message.deleted, attributed to the deleted message's author", () => {
      expect(mapOne(deletedMessage(), ME)).toEqual({
        sourceType: 'slack',
        eventType: 'chat.message.deleted',
        occurredAt: '2026-05-14T09:12:30.000Z',
        externalId: 'Ev07U1A2B3D9',
        payload: { channel: CHANNEL, channel_type: 'channel', user: ME, deleted_ts: '1778749320.512109' },
      });
    });

    it('ignores bot messages, with or without the bot_message subtype', () => {
      const reason = 'bot messages are not member activity';
      expect(map(fixture('bot_message'))).toEqual({ kind: 'ignored', reason });
      expect(map(patch('message', { 'event.bot_id': 'B06DEPL0YBT' }))).toEqual({ kind: 'ignored', reason });
      expect(map(patch('message_changed', { 'event.message.bot_id': 'B06DEPL0YBT' }))).toEqual({ kind: 'ignored', reason });
    });

    it.each(['channel_join', 'channel_topic', 'me_message'])('ignores the %s subtype', (subtype) => {
      expect(map(patch('message', { 'event.subtype': subtype }))).toEqual({
        kind: 'ignored',
        reason: `message subtype "${subtype}" is not mapped`,
      });
    });
  });

  describe('reactions and huddles', () => {
    it('maps reaction_added', () => {
      expect(mapOne(fixture('reaction_added'))).toEqual({
        sourceType: 'slack',
        eventType: 'chat.reaction.added',
        occurredAt: '2026-05-14T09:08:20.000Z',
        externalId: 'Ev07U1A2B3E1',
        payload: {
          user: ME,
          reaction: 'white_check_mark',
          item_type: 'message',
          item_channel: CHANNEL,
          item_ts: '1778749611.104229',
          item_user: OTHER,
        },
      });
    });

    it('maps reaction_removed, and a reaction on a file (no channel or ts)', () => {
      const body = patch('reaction_added', { 'event.type': 'reaction_removed', 'event.item': { type: 'file', file: 'F07ABC' } });
      expect(mapOne(body)).toMatchObject({
        eventType: 'chat.reaction.removed',
        payload: { item_type: 'file', item_channel: null, item_ts: null },
      });
    });

    it('maps user_huddle_changed to the huddle state and call id only — no profile details', () => {
      const event = mapOne(fixture('user_huddle_changed'));
      expect(event).toEqual({
        sourceType: 'slack',
        eventType: 'chat.huddle.changed',
        occurredAt: '2026-05-14T09:10:00.012Z',
        externalId: 'Ev07U1A2B3F7',
        payload: { user: ME, huddle_state: 'in_a_huddle', call_id: 'R07HUDD1E42' },
      });
      const json = JSON.stringify(event.payload);
      for (const detail of ['acme.example', '+49', 'pairing', 'Octo Dev']) expect(json).not.toContain(detail);
    });

    it('maps leaving a huddle, with no call id', () => {
      const body = patch('user_huddle_changed', {
        'event.user.profile.huddle_state': 'default_unset',
        'event.user.profile.huddle_state_call_id': '',
      });
      expect(mapOne(body).payload).toEqual({ user: ME, huddle_state: 'default_unset', call_id: null });
    });

    it.each(['app_mention', 'channel_created', 'constructor'])('ignores the unmapped event "%s"', (type) => {
      expect(map(patch('message', { 'event.type': type }))).toEqual({ kind: 'ignored', reason: `slack event "${type}" is not mapped` });
    });
  });

  describe('the connected account', () => {
    it.each(['message', 'message.thread_reply', 'message_changed', 'reaction_added', 'user_huddle_changed'])(
      "maps the account's own %s",
      (name) => {
        expect(map(fixture(name), ME).kind).toBe('mapped');
      },
    );

    it("ignores another user's event, naming the user", () => {
      expect(map(fixture('message'), OTHER)).toEqual({ kind: 'ignored', reason: `user ${ME} is not the connected account ${OTHER}` });
      expect(map(fixture('user_huddle_changed'), OTHER)).toEqual({
        kind: 'ignored',
        reason: `user ${ME} is not the connected account ${OTHER}`,
      });
    });

    it('attributes an edit to the edited message author, and a deletion to the deleted message author', () => {
      const editedByOther = patch('message_changed', { 'event.message.user': OTHER });
      expect(map(editedByOther, ME)).toEqual({ kind: 'ignored', reason: `user ${OTHER} is not the connected account ${ME}` });
      expect(map(deletedMessage(), OTHER)).toEqual({ kind: 'ignored', reason: `user ${ME} is not the connected account ${OTHER}` });
    });

    it('ignores an event naming no user when an account is connected, and maps it when none is', () => {
      const body = patch('reaction_added', { 'event.user': undefined });
      expect(map(body, ME)).toEqual({
        kind: 'ignored',
        reason: `slack event "reaction_added" names no user, so it is not ${ME}'s activity`,
      });
      expect(mapOne(body, null).payload.user).toBeNull();
    });
  });

  describe('malformed envelopes', () => {
    it.each([null, [], 'event_callback', 1])('refuses an envelope that is not an object (%p)', (body) => {
      expect(map(body)).toEqual({ kind: 'invalid', reason: 'the envelope is missing or not an object' });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['message', { type: undefined }, 'type is missing or not a string'],
      ['message', { event_id: undefined }, 'event_id is missing or not a string'],
      ['message', { event_id: 'E'.repeat(MAX_EXTERNAL_ID_LENGTH + 1) }, 'event_id is longer than 256 characters'],
      ['message', { event: undefined }, 'event is missing or not an object'],
      ['message', { event: 'message' }, 'event is missing or not an object'],
      ['message', { 'event.type': undefined }, 'event.type is missing or not a string'],
      ['message', { 'event.event_ts': 'soon' }, 'event.event_ts is not a timestamp'],
    ])('refuses %s with %j: %s', (name, changes, reason) => {
      expect(map(patch(name, changes))).toEqual({ kind: 'invalid', reason });
    });

    // A signed, well-formed envelope is acknowledged; an inner event Slack shaped unexpectedly is logged as ignored.
    it.each<[string, Record<string, unknown>, string, string]>([
      ['message', { 'event.ts': 1778749320 }, 'message', 'event.ts is missing or not a string'],
      ['reaction_added', { 'event.item': undefined }, 'reaction_added', 'event.item is missing or not an object'],
      ['reaction_added', { 'event.reaction': '' }, 'reaction_added', 'event.reaction is missing or not a string'],
      ['user_huddle_changed', { 'event.user': ME }, 'user_huddle_changed', 'event.user is missing or not an object'],
      ['user_huddle_changed', { 'event.user.profile': undefined }, 'user_huddle_changed', 'event.user.profile is missing or not an object'],
      [
        'user_huddle_changed',
        { 'event.user.profile.huddle_state': undefined },
        'user_huddle_changed',
        'event.user.profile.huddle_state is missing or not a string',
      ],
    ])('ignores %s with %j, naming the reason', (name, changes, type, reason) => {
      expect(map(patch(name, changes))).toEqual({ kind: 'ignored', reason: `slack event "${type}" of an unexpected shape: ${reason}` });
    });

    it('maps a message without a channel (the docs examples of some subtypes omit it) with channel null', () => {
      expect(mapOne(patch('message', { 'event.channel': undefined })).payload.channel).toBeNull();
    });

    it('ignores message_changed without the inner message; takes a missing inner ts from previous_message', () => {
      expect(map(patch('message_changed', { 'event.message': undefined }))).toEqual({
        kind: 'ignored',
        reason: 'message_changed without the changed message',
      });
      const body = patch('message_changed', {
        'event.message.ts': undefined,
        'event.previous_message': { ts: '1778749300.000100', user: ME },
      });
      expect(mapOne(body).payload.ts).toBe('1778749300.000100');
    });

    it('ignores message_deleted without deleted_ts, naming the reason', () => {
      const body = patchFixture('slack', 'message_changed', { 'event.subtype': 'message_deleted', 'event.deleted_ts': undefined });
      expect(map(body)).toEqual({
        kind: 'ignored',
        reason: 'slack event "message" of an unexpected shape: event.deleted_ts is missing or not a string',
      });
    });
  });

  describe('time (D-19)', () => {
    it('falls back from event_ts to ts to event_time to the receipt time', () => {
      expect(mapOne(patch('message', { 'event.event_ts': undefined, 'event.ts': '1778749321.250000' })).occurredAt).toBe(
        '2026-05-14T09:02:01.250Z',
      );
      expect(mapOne(patch('reaction_added', { 'event.event_ts': undefined })).occurredAt).toBe('2026-05-14T09:08:20.000Z');
      expect(mapOne(patch('reaction_added', { 'event.event_ts': undefined, event_time: undefined })).occurredAt).toBe(
        receivedAt.toISOString(),
      );
    });

    it('clamps a time more than 10 minutes ahead of receipt to the receipt time, and keeps one exactly 10 minutes ahead', () => {
      const seconds = receivedAt.getTime() / 1000;
      expect(mapOne(patch('reaction_added', { 'event.event_ts': `${seconds + 601}.000000` })).occurredAt).toBe('2026-05-14T09:15:00.000Z');
      expect(mapOne(patch('reaction_added', { 'event.event_ts': `${seconds + 600}.000000` })).occurredAt).toBe('2026-05-14T09:25:00.000Z');
    });
  });

  describe('every mapped event (D-18, D-36)', () => {
    // Whether the body carries free text holding FIXTURE_TOKEN (a reaction has none).
    const cases: Array<[string, unknown, boolean]> = [
      ['message', fixture('message'), true],
      ['message.thread_reply', fixture('message.thread_reply'), true],
      ['message_changed', fixture('message_changed'), true],
      ['message_deleted', deletedMessage(), true],
      ['reaction_added', fixture('reaction_added'), false],
      ['user_huddle_changed', fixture('user_huddle_changed'), true],
    ];

    it.each(cases)('%s is a valid, secret-free ActivityEvent of metadata', (_name, body, carriesSecret) => {
      expect(JSON.stringify(body).includes(FIXTURE_TOKEN)).toBe(carriesSecret); // the fixture does carry the secret…
      const event = mapOne(body, ME);
      const json = JSON.stringify(event.payload);
      expect(json).not.toContain(FIXTURE_TOKEN); // …and the payload does not
      expect(json).not.toMatch(/staging token|revoked|rotate it/);
      expect(findSecrets(event.payload)).toEqual([]);
      expect(event.eventType).toMatch(SLUG_PATTERN);
      expect(payloadBytes(event.payload)).toBeLessThan(MAX_PAYLOAD_BYTES);
      expect(event.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(event.externalId).toMatch(/^Ev[0-9A-Z]+$/);
      expect(event.sourceType).toBe('slack');
      for (const key of Object.keys(event.payload)) expect(key).toMatch(/^[a-z][a-z0-9_]*$/);
    });
  });
});
