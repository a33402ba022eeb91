import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import {
  allTopics,
  CreateConnector,
  DeleteConnector,
  ErrorCode,
  ListConnectors,
  ListDeliveries,
  ListEvents,
  ReceiveWebhook,
  type ActorV1,
  type ConnectorV1,
  type CreateConnectorV1,
  type DeliveryV1,
  type StoredEventV1,
  type WebhookHeadersV1,
} from '@worktrack/contracts';
import { CommandClient, DomainError, ensureTopics, startService } from '@worktrack/platform';
import {
  eventually,
  memberWithToken,
  ownNamespace,
  startAppProcess,
  testConfig,
  testKafka,
  type AppProcess,
  type TestKafka,
} from '@worktrack/testing';
import { CalendarPoller } from '../src/calendar/calendar.poller';
import { DeliveryProcessor } from '../src/deliveries/delivery.processor';
import { ConnectorsConfig } from '../src/connectors.config';
import { ConnectorsAppModule } from '../src/app.module';
import { readCalendarFixture } from './fixtures/calendar/calendar-fixtures';
import { FIXTURE_TOKEN, loadFixture, signGithub, signSlack } from './fixtures/fixtures';

/** 60 daily and weekly series begun in 2016 and 3,000 single events around now (some 500 KiB). */
function largeFeed(): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//large feed//EN', 'X-WR-TIMEZONE:Europe/Berlin'];
  for (let i = 0; i < 60; i++) {
    const start = `2016${String((i % 12) + 1).padStart(2, '0')}04T${String(8 + (i % 9)).padStart(2, '0')}0000`;
    lines.push('BEGIN:VEVENT', `UID:daily-${i}@large`, `DTSTART;TZID=Europe/Berlin:${start}`, 'DURATION:PT15M');
    lines.push(i % 2 ? 'RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR' : 'RRULE:FREQ=WEEKLY', `SUMMARY:Series ${i}`, 'END:VEVENT');
  }
  const base = Date.now() - 30 * 86_400_000;
  for (let i = 0; i < 3_000; i++) {
    const start = new Date(base + i * 3_600_000)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    lines.push('BEGIN:VEVENT', `UID:single-${i}@large`, `DTSTART:${start}`, 'DURATION:PT30M', `SUMMARY:Meeting ${i}`, 'END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return lines.join('\r\n');
}

/** An all-day event and a floating time, no X-WR-TIMEZONE: both are read in the member's zone. */
const MEMBER_ZONE_FEED = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//test//member zone//EN',
  'BEGIN:VEVENT',
  'UID:allday@member-zone',
  'DTSTAMP:20261101T000000Z',
  'DTSTART;VALUE=DATE:20261117',
  'DTEND;VALUE=DATE:20261118',
  'SUMMARY:Offsite',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:floating@member-zone',
  'DTSTAMP:20261101T000000Z',
  'DTSTART:20261117T100000',
  'DURATION:PT30M',
  'SUMMARY:Standup',
  'END:VEVENT',
  'END:VCALENDAR',
].join('\r\n');

/**
 * The connectors service with real identity and ingestion services, Kafka and
 * Postgres (D-36): signed provider deliveries become stored events through
 * the IngestEvents path, replays deduplicate, bad signatures store nothing,
 * the calendar feed is expanded and diffed, a malformed feed keeps the last
 * good state. The topic namespace is private to this file.
 * identity and ingestion run as the built apps.
 */
describe('connectors: webhooks and calendar feeds through ingestion (D-36)', () => {
  let services: AppProcess[] = [];
  let connectorsApp: NestFastifyApplication;
  let kafka: TestKafka;
  let env: Record<string, string> = {};
  let dropDatabase: (() => Promise<void>) | undefined;
  let rpc: CommandClient;
  let db: DataSource;
  let actor: ActorV1;
  let feedServer: Server;
  let feedBody = '';
  const GITHUB_SECRET = 'gh-webhook-secret-1234';
  const SLACK_SECRET = 'slack-signing-secret-5678';

  const events = async (sourceType: string): Promise<StoredEventV1[]> =>
    (await rpc.send(ListEvents, { actor, limit: 100, sourceType }, { key: actor.memberId })).events;
  const deliveries = async (connectorId: string): Promise<DeliveryV1[]> =>
    (await rpc.send(ListDeliveries, { actor, connectorId, limit: 100 }, { key: actor.memberId })).deliveries;
  const create = (over: Partial<Omit<CreateConnectorV1, 'actor'>>) =>
    rpc.send(CreateConnector, { actor, name: 'test', kind: 'github', ...over }, { key: actor.memberId });
  const receive = (provider: 'github' | 'slack', connectorId: string, raw: Buffer, headers: WebhookHeadersV1) =>
    rpc.send(
      ReceiveWebhook,
      { provider, connectorId, headers, body: raw.toString('utf8'), bodyEncoding: 'utf8', receivedAt: new Date().toISOString() },
      { key: connectorId },
    );
  const rejection = async (p: Promise<unknown>): Promise<DomainError> => {
    try {
      await p;
    } catch (err) {
      if (err instanceof DomainError) return err;
      throw err;
    }
    throw new Error('expected a DomainError');
  };
  const settled = (connectorId: string, count: number) =>
    eventually(async () => {
      const log = await deliveries(connectorId);
      return log.length >= count && log.every((d) => d.state !== 'pending');
    }, `${count} deliveries processed`);

  beforeAll(async () => {
    // A topic namespace and a database of its own: its identity and ingestion relay their schemas' outboxes
    // to its prefix, and on the shared database would take other spec files' rows.
    const namespace = await ownNamespace('connectors');
    ({ env, drop: dropDatabase } = namespace);
    kafka = testKafka('connectors-it', env);
    await ensureTopics(await kafka.client.admin(), allTopics(), namespace.prefix);
    // identity and ingestion as the built apps (processes); connectors in-process, so the test can drive its poller.
    [services, connectorsApp] = await Promise.all([
      Promise.all([startAppProcess('identity', env), startAppProcess('ingestion', env)]),
      // Calendar polls are driven by the test (fixed clock); the processor reacts at once to new deliveries.
      startService(
        'connectors',
        ConnectorsAppModule,
        testConfig(ConnectorsConfig, {
          ...env,
          CALENDAR_SCHEDULER_INTERVAL_MS: '3600000',
          WORK_POLL_INTERVAL_MS: '200',
          FEED_ALLOW_PRIVATE_HOSTS: 'true', // the test's feed server is on loopback
        }),
      ),
    ]);
    db = connectorsApp.get(DataSource);
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 15_000 });
    await rpc.start();
    const run = randomUUID().slice(0, 8);
    const member = memberWithToken({ workspace: `conn-${run}`, email: `c-${run}@example.com` }, env);
    actor = { memberId: member.memberId, workspaceId: member.workspaceId, scope: 'full', credential: 'api_token' };
    feedServer = createServer((req, res) => {
      if (req.url === '/missing.ics') {
        res.writeHead(404).end();
        return;
      }
      if (req.url === '/large.ics') {
        res.writeHead(200, { 'content-type': 'text/calendar' }).end(largeFeed());
        return;
      }
      if (req.url === '/member-zone.ics') {
        res.writeHead(200, { 'content-type': 'text/calendar' }).end(MEMBER_ZONE_FEED);
        return;
      }
      if (req.url === '/one-bad-event.ics') {
        res
          .writeHead(200, { 'content-type': 'text/calendar' })
          .end(readFileSync(join(__dirname, 'fixtures', 'calendar', 'real-world', 'one-bad-event.ics')));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' }).end(feedBody);
    });
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  }, 120_000);

  afterAll(async () => {
    feedServer?.close();
    await rpc?.stop();
    await kafka?.close();
    await connectorsApp?.close();
    await Promise.all(services.map((s) => s.stop()));
    await dropDatabase?.();
  });

  describe('connectors', () => {
    it('stores secrets only encrypted and never returns them; credentials are report_only tokens', async () => {
      const c = await create({ kind: 'github', secret: GITHUB_SECRET, account: 'octo-dev' });
      expect(c).toMatchObject({ kind: 'github', memberId: actor.memberId, status: 'active', hookPath: `/hooks/github/${c.connectorId}` });
      expect(JSON.stringify(c)).not.toContain(GITHUB_SECRET);
      const [row] = await db.query<Array<Record<string, string>>>(`SELECT * FROM connectors.connectors WHERE id = $1`, [c.connectorId]);
      expect(JSON.stringify(row)).not.toContain(GITHUB_SECRET);
      expect(row.credential_box).not.toMatch(/wt_/);
      const listed = await rpc.send(ListConnectors, { actor }, { key: actor.memberId });
      expect(listed.connectors.map((x) => x.connectorId)).toContain(c.connectorId);
    });

    it('refuses settings a kind does not take or lacks, naming each field', async () => {
      const err = await rejection(create({ kind: 'github', feedUrl: 'https://example.com/x.ics' }));
      expect(err.code).toBe(ErrorCode.VALIDATION_FAILED);
      expect(err.details?.map((d) => d.path).sort()).toEqual(['feed_url', 'secret']);
      const bad = await rejection(create({ kind: 'calendar', feedUrl: 'ftp://example.com/x.ics' }));
      expect(bad.details).toEqual([{ path: 'feed_url', issue: 'must be an http, https or webcal URL' }]);
    });

    it('treats a connector of someone else as missing (D-7)', async () => {
      const c = await create({ kind: 'slack', secret: SLACK_SECRET });
      const stranger: ActorV1 = { ...actor, memberId: randomUUID() };
      const err = await rejection(rpc.send(ListDeliveries, { actor: stranger, connectorId: c.connectorId, limit: 10 }, { key: 'x' }));
      expect(err.code).toBe(ErrorCode.NOT_FOUND);
    });
  });

  describe('GitHub webhooks', () => {
    let github: ConnectorV1;
    const push = loadFixture('github', 'push').raw;
    const headers = (raw: Buffer, delivery: string, event = 'push'): WebhookHeadersV1 => ({
      contentType: 'application/json',
      githubEvent: event,
      githubDelivery: delivery,
      githubSignature256: signGithub(GITHUB_SECRET, raw),
    });

    beforeAll(async () => {
      github = await create({ kind: 'github', secret: GITHUB_SECRET });
    });

    it('stores a signed push as a github event, and a redelivery only once', async () => {
      const delivery = randomUUID();
      const first = await receive('github', github.connectorId, push, headers(push, delivery));
      expect(first.outcome).toBe('accepted');
      await settled(github.connectorId, 1);
      const again = await receive('github', github.connectorId, push, headers(push, delivery));
      expect(again.outcome).toBe('accepted');
      await settled(github.connectorId, 2);

      const log = await deliveries(github.connectorId);
      expect(log.map((d) => [d.providerDeliveryId, d.state, d.eventsAccepted, d.eventsDeduplicated])).toEqual([
        [delivery, 'ingested', 0, 1],
        [delivery, 'ingested', 1, 0],
      ]);
      const stored = (await events('github')).filter((e) => e.externalId === `${delivery}:0`);
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ sourceType: 'github', eventType: 'push' });
      expect(JSON.stringify(stored[0].payload)).not.toContain(FIXTURE_TOKEN);
    });

    it('refuses a tampered body or a wrong signature with 401 and stores nothing', async () => {
      const before = (await deliveries(github.connectorId)).length;
      const tampered = Buffer.from(push.toString('utf8').replace('"forced": false', '"forced": true '));
      expect(tampered.equals(push)).toBe(false);
      const err = await rejection(receive('github', github.connectorId, tampered, headers(push, randomUUID())));
      expect(err.code).toBe(ErrorCode.UNAUTHENTICATED);
      const wrong = await rejection(
        receive('github', github.connectorId, push, {
          ...headers(push, randomUUID()),
          githubSignature256: signGithub('not-the-secret', push),
        }),
      );
      expect(wrong.code).toBe(ErrorCode.UNAUTHENTICATED);
      const missing = await rejection(
        receive('github', github.connectorId, push, { ...headers(push, randomUUID()), githubSignature256: undefined }),
      );
      expect(missing.code).toBe(ErrorCode.UNAUTHENTICATED);
      expect(await deliveries(github.connectorId)).toHaveLength(before);
    });

    it('acknowledges an unmapped event type and logs it as ignored', async () => {
      const issue = loadFixture('github', 'issues.opened').raw;
      const ack = await receive('github', github.connectorId, issue, headers(issue, randomUUID(), 'issues'));
      expect(ack.outcome).toBe('ignored');
      const [latest] = await deliveries(github.connectorId);
      expect(latest).toMatchObject({ providerEvent: 'issues', state: 'ignored', eventsMapped: 0 });
      expect(latest.detail).toMatch(/issues/);
    });

    it('answers 404 for an unknown connector or the wrong provider, and for a deleted one', async () => {
      expect((await rejection(receive('github', randomUUID(), push, headers(push, randomUUID())))).code).toBe(ErrorCode.NOT_FOUND);
      const slack = await create({ kind: 'slack', secret: SLACK_SECRET });
      expect((await rejection(receive('github', slack.connectorId, push, headers(push, randomUUID())))).code).toBe(ErrorCode.NOT_FOUND);
      const doomed = await create({ kind: 'github', secret: GITHUB_SECRET });
      await rpc.send(DeleteConnector, { actor, connectorId: doomed.connectorId }, { key: actor.memberId });
      expect((await rejection(receive('github', doomed.connectorId, push, headers(push, randomUUID())))).code).toBe(ErrorCode.NOT_FOUND);
    });
  });

  describe('Slack Events API', () => {
    let slack: ConnectorV1;
    const now = (): number => Math.floor(Date.now() / 1000);
    const headers = (raw: Buffer, ts = now(), retry?: number): WebhookHeadersV1 => ({
      contentType: 'application/json',
      slackTimestamp: String(ts),
      slackSignature: signSlack(SLACK_SECRET, ts, raw),
      ...(retry !== undefined ? { slackRetryNum: String(retry), slackRetryReason: 'http_timeout' } : {}),
    });

    beforeAll(async () => {
      slack = await create({ kind: 'slack', secret: SLACK_SECRET });
    });

    it('answers the url_verification challenge', async () => {
      const { raw, json } = loadFixture('slack', 'url_verification');
      const ack = await receive('slack', slack.connectorId, raw, headers(raw));
      expect(ack).toMatchObject({ outcome: 'challenge', challenge: (json as { challenge: string }).challenge });
    });

    it('stores a message as metadata only, and a retry once (event_id)', async () => {
      const raw = Buffer.from(JSON.stringify({ ...(loadFixture('slack', 'message').json as object), event_id: `Ev${randomUUID()}` }));
      await receive('slack', slack.connectorId, raw, headers(raw));
      await receive('slack', slack.connectorId, raw, headers(raw, now(), 1));
      await settled(slack.connectorId, 2);
      const log = await deliveries(slack.connectorId);
      // Both deliveries are logged, the retry with its number; the event counts once. The processor works on the
      // deliveries it claims concurrently, so either one may reach ingestion first and be the one accepted.
      expect(log.slice(0, 2).map((d) => d.retryNum)).toEqual([1, null]);
      expect(
        log
          .slice(0, 2)
          .map((d) => [d.eventsAccepted, d.eventsDeduplicated])
          .sort(),
      ).toEqual([
        [0, 1],
        [1, 0],
      ]);
      const stored = await events('slack');
      expect(stored.filter((e) => e.eventType === 'chat.message')).toHaveLength(1);
      expect(JSON.stringify(stored)).not.toContain('rotate it after the demo');
      expect(JSON.stringify(stored)).not.toContain(FIXTURE_TOKEN);
    });

    it("acknowledges Slack's documented thread-metadata notice and logs it as ignored, storing nothing", async () => {
      const docs = loadFixture('slack', 'docs/message.message_replied').json as object;
      const raw = Buffer.from(JSON.stringify({ ...docs, event_id: `Ev${randomUUID()}` }));
      const ack = await receive('slack', slack.connectorId, raw, headers(raw));
      expect(ack.outcome).toBe('ignored');
      const [logged] = await deliveries(slack.connectorId);
      expect(logged.state).toBe('ignored');
      expect(logged.detail).toMatch(/message_replied is thread metadata/);
    });

    it('refuses a timestamp outside the 5-minute window even when correctly signed', async () => {
      const { raw } = loadFixture('slack', 'reaction_added');
      const err = await rejection(receive('slack', slack.connectorId, raw, headers(raw, now() - 301)));
      expect(err.code).toBe(ErrorCode.UNAUTHENTICATED);
      expect(err.message).toMatch(/5-minute/);
    });
  });

  describe('calendar feeds', () => {
    let calendar: ConnectorV1;
    const poll = (at: string) => connectorsApp.get(CalendarPoller).poll(calendar.connectorId, new Date(at));

    beforeAll(async () => {
      const { port } = feedServer.address() as AddressInfo;
      calendar = await create({ kind: 'calendar', feedUrl: `http://127.0.0.1:${port}/team.ics?token=private-feed-token` });
    });

    it('shows the feed only as scheme and host', () => {
      expect(calendar.feedUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/…$/);
      expect(JSON.stringify(calendar)).not.toContain('private-feed-token');
    });

    it('turns started meetings into calendar.meeting events (recurrence, exception, cancellation), then changes into .updated/.cancelled', async () => {
      feedBody = readCalendarFixture('team.ics');
      await poll('2026-11-20T12:00:00Z');
      await settled(calendar.connectorId, 1);
      const first = await events('calendar');
      const titles = first.map((e) => e.payload.title);
      expect(titles).toContain('Team standup (after the all-hands)'); // the moved Monday instance
      expect(titles).toContain('Design review: connectors');
      expect(first.map((e) => e.occurredAt)).not.toContain('2026-11-18T08:30:00.000Z'); // EXDATE
      expect(first.every((e) => e.eventType === 'calendar.meeting')).toBe(true);
      expect(first.every((e) => Date.parse(e.occurredAt) <= Date.parse('2026-11-20T12:00:00Z'))).toBe(true); // only started ones
      expect(JSON.stringify(first)).not.toMatch(/zoom|pwd=/i);

      await poll('2026-11-20T12:05:00Z'); // same feed: nothing new
      expect((await deliveries(calendar.connectorId)).filter((d) => d.state !== 'failed')).toHaveLength(1);

      feedBody = readCalendarFixture('team-updated.ics');
      await poll('2026-11-20T13:00:00Z');
      await settled(calendar.connectorId, 2);
      const types = (await events('calendar')).map((e) => e.eventType);
      expect(types).toContain('calendar.meeting.updated');
      expect(types).toContain('calendar.meeting.cancelled');
    });

    it('marks the connector unhealthy on a malformed feed and keeps the last good state', async () => {
      const before = (await events('calendar')).length;
      feedBody = readCalendarFixture('malformed.ics');
      await poll('2026-11-20T14:00:00Z');
      const [listed] = (await rpc.send(ListConnectors, { actor }, { key: actor.memberId })).connectors.filter(
        (c) => c.connectorId === calendar.connectorId,
      );
      expect(listed.status).toBe('unhealthy');
      expect(listed.lastError).toMatch(/^malformed feed: /);
      const [failed] = await deliveries(calendar.connectorId);
      expect(failed).toMatchObject({ state: 'failed', providerEvent: 'poll' });

      feedBody = readCalendarFixture('team-updated.ics'); // back to good: nothing was taken as cancelled meanwhile
      await poll('2026-11-20T14:05:00Z');
      expect((await events('calendar')).length).toBe(before);
      const [healthy] = (await rpc.send(ListConnectors, { actor }, { key: actor.memberId })).connectors.filter(
        (c) => c.connectorId === calendar.connectorId,
      );
      expect(healthy).toMatchObject({ status: 'active', lastError: null });
    });
    it('keeps answering webhooks within 3 s while a large feed is parsed and expanded', async () => {
      const { port } = feedServer.address() as AddressInfo;
      const large = await create({ kind: 'calendar', feedUrl: `http://127.0.0.1:${port}/large.ics` });
      const hook = await create({ kind: 'github', secret: GITHUB_SECRET });
      const { raw } = loadFixture('github', 'ping');
      const answerTimes: number[] = [];
      let polling = true;
      const poll = connectorsApp
        .get(CalendarPoller)
        .poll(large.connectorId, new Date())
        .finally(() => (polling = false));
      do {
        const started = Date.now();
        const ack = await receive('github', hook.connectorId, raw, {
          contentType: 'application/json',
          githubEvent: 'ping',
          githubDelivery: randomUUID(),
          githubSignature256: signGithub(GITHUB_SECRET, raw),
        });
        expect(ack.outcome).toBe('ignored');
        answerTimes.push(Date.now() - started);
        await new Promise((r) => setTimeout(r, 100));
      } while (polling);
      await poll;
      const [listed] = (await rpc.send(ListConnectors, { actor }, { key: actor.memberId })).connectors.filter(
        (c) => c.connectorId === large.connectorId,
      );
      expect(listed).toMatchObject({ status: 'active', lastError: null }); // the feed was read, not refused
      expect(answerTimes.length).toBeGreaterThan(1);
      expect(Math.max(...answerTimes)).toBeLessThan(3_000);
    });

    it('stores the rest of a feed when one event is unreadable, naming that event in the delivery log', async () => {
      const { port } = feedServer.address() as AddressInfo;
      const mixed = await create({ kind: 'calendar', feedUrl: `http://127.0.0.1:${port}/one-bad-event.ics` });
      const poller = connectorsApp.get(CalendarPoller);
      await poller.poll(mixed.connectorId, new Date('2026-11-20T12:00:00Z'));
      await settled(mixed.connectorId, 2);
      const log = await deliveries(mixed.connectorId);
      expect(log.find((d) => d.state === 'ingested')).toMatchObject({ eventsAccepted: 2 });
      expect(log.find((d) => d.state === 'ignored')?.detail).toMatch(
        /^1 event left out, the rest of the feed stored: UID "bad-1@groupware\.example" \(line 14\): invalid DTSTART/,
      );
      const [listed] = (await rpc.send(ListConnectors, { actor }, { key: actor.memberId })).connectors.filter(
        (c) => c.connectorId === mixed.connectorId,
      );
      expect(listed).toMatchObject({ status: 'active', lastError: null });

      await poller.poll(mixed.connectorId, new Date('2026-11-20T12:05:00Z')); // the same skip is not logged again
      expect((await deliveries(mixed.connectorId)).filter((d) => d.state === 'ignored')).toHaveLength(1);
    });

    it("reads all-day and floating times in the member's zone, as identity records it", async () => {
      const run = randomUUID().slice(0, 8);
      const tokyo = memberWithToken({ workspace: `conn-tz-${run}`, email: `tz-${run}@example.com`, timezone: 'Asia/Tokyo' }, env);
      const tokyoActor: ActorV1 = { memberId: tokyo.memberId, workspaceId: tokyo.workspaceId, scope: 'full', credential: 'api_token' };
      const { port } = feedServer.address() as AddressInfo;
      const connector = await rpc.send(
        CreateConnector,
        { actor: tokyoActor, name: 'tokyo', kind: 'calendar', feedUrl: `http://127.0.0.1:${port}/member-zone.ics` },
        { key: tokyoActor.memberId },
      );
      await connectorsApp.get(CalendarPoller).poll(connector.connectorId, new Date('2026-11-20T12:00:00Z'));
      const stored = async (): Promise<StoredEventV1[]> =>
        (await rpc.send(ListEvents, { actor: tokyoActor, limit: 100, sourceType: 'calendar' }, { key: tokyoActor.memberId })).events;
      await eventually(async () => (await stored()).length === 2, 'both meetings stored');
      const events = await stored();
      const byTitle = new Map(events.map((e) => [e.payload.title, e]));
      // Midnight to midnight in Tokyo (UTC+9), and 10:00 Tokyo time; a UTC reading would give 00:00Z and 10:00Z.
      expect(byTitle.get('Offsite')).toMatchObject({ occurredAt: '2026-11-16T15:00:00.000Z' });
      expect(byTitle.get('Offsite')?.payload).toMatchObject({
        all_day: true,
        starts_at: '2026-11-16T15:00:00.000Z',
        ends_at: '2026-11-17T15:00:00.000Z',
      });
      expect(byTitle.get('Standup')).toMatchObject({ occurredAt: '2026-11-17T01:00:00.000Z' });
    });
  });
  describe('undeliverable events', () => {
    it('fails a delivery whose mapped events break the ingestion contract at once, with the reason, instead of retrying for a day', async () => {
      const github = await create({ kind: 'github', secret: GITHUB_SECRET });
      const id = randomUUID();
      const bad = {
        sourceType: 'github',
        eventType: 'Not A Slug!',
        occurredAt: new Date().toISOString(),
        payload: {},
        externalId: `x-${id}`,
      };
      await db.query(
        `INSERT INTO "connectors"."deliveries" (id, connector_id, received_at, provider_delivery_id, provider_event, state, events, events_mapped, next_attempt_at)
         VALUES ($1, $2, now(), $3, 'push', 'pending', $4::jsonb, 1, now())`,
        [id, github.connectorId, `manual-${id}`, JSON.stringify([bad])],
      );
      connectorsApp.get(DeliveryProcessor).kick();
      await settled(github.connectorId, 1);
      const [row] = await db.query<Array<{ state: string; attempts: number; detail: string }>>(
        `SELECT state, attempts, detail FROM "connectors"."deliveries" WHERE id = $1`,
        [id],
      );
      expect(row.state).toBe('failed');
      expect(row.attempts).toBe(1);
      expect(row.detail).toMatch(/^the mapped events break the ingestion\.events\.ingest\.v1 contract: events\[0\]\.eventType /);
    });
  });
});
