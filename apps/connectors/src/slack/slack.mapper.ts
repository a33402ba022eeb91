import { MAX_EXTERNAL_ID_LENGTH } from '@worktrack/contracts';
import { MappingOutcome } from '../mapping/mapped-event';
import {
  arr,
  firstTime,
  guardMalformed,
  JsonObject,
  MalformedBody,
  needObj,
  needStr,
  obj,
  occurredAtFor,
  str,
  withoutSecrets,
} from '../mapping/json-read';

/** One Events API request as the controller received it (signature already verified). */
export interface SlackEnvelopeInput {
  body: unknown;
  /** The connected Slack user id, e.g. `U012AB3CD`; null maps every user. */
  account: string | null;
  receivedAt: Date;
}

/** `url_verification`: Slack's handshake — answer with the challenge, ingest nothing. */
export type SlackOutcome = { kind: 'url_verification'; challenge: string } | MappingOutcome;

/** What one inner-event mapper yields: the event, and whose activity it is (for the account filter). */
interface Draft {
  eventType: string;
  actor: string | null;
  payload: JsonObject;
}
type Ignored = { kind: 'ignored'; reason: string };
type EventMapper = (event: JsonObject) => Draft | Ignored;

const ignored = (reason: string): Ignored => ({ kind: 'ignored', reason });
/** `<@U024BE7LH>` or `<@U024BE7LH|name>` in Slack's message markup. */
const USER_MENTION = /<@[A-Z0-9]+(?:\|[^>]*)?>/g;
const BOT_MESSAGE = 'bot messages are not member activity';

/**
 * Maps one Events API envelope. The external id is Slack's `event_id`, the
 * same on every retry, so a retried delivery deduplicates (D-15). Payloads
 * are metadata only (D-36): never `text`, `blocks`, attachment or file
 * contents — a message becomes counts (characters, mentions, files).
 */
export function mapSlackEnvelope(input: SlackEnvelopeInput): SlackOutcome {
  return guardMalformed((): SlackOutcome => {
    const envelope = needObj(input.body, 'the envelope');
    const type = needStr(envelope.type, 'type');
    switch (type) {
      case 'url_verification':
        return { kind: 'url_verification', challenge: needStr(envelope.challenge, 'challenge') };
      case 'event_callback':
        return mapCallback(envelope, input.account, input.receivedAt);
      case 'app_rate_limited':
        return ignored('app_rate_limited: Slack is withholding events from this app for the current minute');
      default:
        return ignored(`slack envelope "${type}" is not mapped`);
    }
  });
}

function mapCallback(envelope: JsonObject, account: string | null, receivedAt: Date): MappingOutcome {
  const eventId = needStr(envelope.event_id, 'event_id');
  if (eventId.length > MAX_EXTERNAL_ID_LENGTH) throw new MalformedBody(`event_id is longer than ${MAX_EXTERNAL_ID_LENGTH} characters`);
  const event = needObj(envelope.event, 'event');
  const type = needStr(event.type, 'event.type');
  const mapper = MAPPERS.get(type);
  if (mapper === undefined) return ignored(`slack event "${type}" is not mapped`);
  // A signed, well-formed envelope is always acknowledged (a refusal makes Slack retry, then disable the app):
  // an inner event of a shape the mapper does not understand is logged as ignored, with the reason.
  let draft: Draft | Ignored;
  try {
    draft = mapper(event);
  } catch (err) {
    if (!(err instanceof MalformedBody)) throw err;
    return ignored(`slack event "${type}" of an unexpected shape: ${err.message}`);
  }
  if ('kind' in draft) return draft;
  const notOurs = accountFilter(type, draft.actor, account);
  if (notOurs) return notOurs;
  const at = firstTime([
    [event.event_ts, 'event.event_ts'],
    [event.ts, 'event.ts'],
    [envelope.event_time, 'event_time'],
  ]);
  const payload = withoutSecrets(draft.payload);
  return {
    kind: 'mapped',
    events: [{ sourceType: 'slack', eventType: draft.eventType, occurredAt: occurredAtFor(at, receivedAt), payload, externalId: eventId }],
  };
}

function accountFilter(type: string, actor: string | null, account: string | null): Ignored | undefined {
  if (account === null) return undefined;
  if (actor === null) return ignored(`slack event "${type}" names no user, so it is not ${account}'s activity`);
  if (actor !== account) return ignored(`user ${actor} is not the connected account ${account}`);
  return undefined;
}

function mapMessage(event: JsonObject): Draft | Ignored {
  const subtype = str(event.subtype);
  switch (subtype) {
    case undefined:
    case 'thread_broadcast':
    case 'file_share':
      if (str(event.bot_id)) return ignored(BOT_MESSAGE);
      // Hidden messages are Slack's bookkeeping (thread metadata and the like), not something a member posted.
      if (event.hidden === true) return ignored('a hidden message is a notice, not a new message');
      return newMessage(event, subtype === 'thread_broadcast');
    case 'message_replied':
      return ignored('message_replied is thread metadata (a reply count changed), not a new message');
    case 'message_changed':
      return editedMessage(event);
    case 'message_deleted':
      return deletedMessage(event);
    case 'bot_message':
      return ignored(BOT_MESSAGE);
    default:
      return ignored(`message subtype "${subtype}" is not mapped`);
  }
}

function newMessage(event: JsonObject, broadcast: boolean): Draft | Ignored {
  const ts = needStr(event.ts, 'event.ts');
  const threadTs = str(event.thread_ts) ?? null;
  const text = str(event.text) ?? '';
  const user = str(event.user) ?? null;
  if (user === null) return ignored('a message without a user is not member activity');
  return {
    eventType: 'chat.message',
    actor: user,
    // Counts stand in for the text itself (D-36).
    payload: {
      channel: str(event.channel) ?? null,
      channel_type: str(event.channel_type) ?? null,
      user,
      ts,
      thread_ts: threadTs,
      is_thread_reply: broadcast || (threadTs !== null && threadTs !== ts),
      character_count: [...text].length,
      file_count: arr(event.files)?.length ?? 0,
      has_attachments: (arr(event.attachments)?.length ?? 0) > 0,
      mention_count: text.match(USER_MENTION)?.length ?? 0,
    },
  };
}

/**
 * message_changed: the inner `message` is whatever Slack chose to resend —
 * fields missing there are taken from `previous_message`, then from the
 * `edited` marker. Without an `edited` marker it is an unfurl or a thread
 * metadata update (reply counts), not an edit; without any user it is nobody's.
 */
function editedMessage(event: JsonObject): Draft | Ignored {
  const message = obj(event.message);
  if (message === undefined) return ignored('message_changed without the changed message');
  const previous = obj(event.previous_message);
  const edited = obj(message.edited);
  if (str(message.bot_id) ?? str(previous?.bot_id)) return ignored(BOT_MESSAGE);
  if (edited === undefined) return ignored('message_changed without "edited" is an unfurl or a thread update, not an edit');
  const user = str(message.user) ?? str(previous?.user) ?? str(edited.user) ?? null;
  if (user === null) return ignored("message_changed names no user, so it is nobody's edit");
  return {
    eventType: 'chat.message.edited',
    actor: user,
    payload: {
      channel: str(event.channel) ?? str(message.channel) ?? null,
      channel_type: str(event.channel_type) ?? null,
      user,
      ts: str(message.ts) ?? str(previous?.ts) ?? null,
      thread_ts: str(message.thread_ts) ?? str(previous?.thread_ts) ?? null,
      edited_ts: str(edited.ts) ?? str(event.ts) ?? null,
    },
  };
}

function deletedMessage(event: JsonObject): Draft | Ignored {
  const deletedTs = needStr(event.deleted_ts, 'event.deleted_ts');
  const user = str(obj(event.previous_message)?.user) ?? null;
  if (user === null) return ignored('message_deleted without previous_message.user cannot be attributed to anyone');
  return {
    eventType: 'chat.message.deleted',
    actor: user,
    payload: {
      channel: str(event.channel) ?? null,
      channel_type: str(event.channel_type) ?? null,
      user,
      deleted_ts: deletedTs,
    },
  };
}

function mapReaction(event: JsonObject): Draft {
  const item = needObj(event.item, 'event.item');
  const user = str(event.user) ?? null;
  return {
    eventType: event.type === 'reaction_added' ? 'chat.reaction.added' : 'chat.reaction.removed',
    actor: user,
    payload: {
      user,
      reaction: needStr(event.reaction, 'event.reaction'),
      item_type: str(item.type) ?? null,
      item_channel: str(item.channel) ?? null,
      item_ts: str(item.ts) ?? null,
      item_user: str(event.item_user) ?? null,
    },
  };
}

function mapHuddle(event: JsonObject): Draft {
  const user = needObj(event.user, 'event.user');
  const id = needStr(user.id, 'event.user.id');
  const profile = needObj(user.profile, 'event.user.profile');
  // Only the huddle fields of the profile: no names, email, phone or status text (D-36).
  return {
    eventType: 'chat.huddle.changed',
    actor: id,
    payload: {
      user: id,
      huddle_state: needStr(profile.huddle_state, 'event.user.profile.huddle_state'),
      call_id: str(profile.huddle_state_call_id) || null,
    },
  };
}

/** A Map, not an object literal, so an event type such as `constructor` finds nothing. */
const MAPPERS = new Map<string, EventMapper>([
  ['message', mapMessage],
  ['reaction_added', mapReaction],
  ['reaction_removed', mapReaction],
  ['user_huddle_changed', mapHuddle],
]);
