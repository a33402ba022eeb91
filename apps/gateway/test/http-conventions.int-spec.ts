import { Body, Controller, Get, Module, Post, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import {
  boundPort,
  createHttpApp,
  createLogger,
  ensureTopics,
  HandleCommand,
  KafkaContractTransport,
  LOGGER,
  Metrics,
} from '@worktrack/platform';
import { testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { allTopics, ResolveMember, SERVICE_NAMES, type PayloadOf } from '@worktrack/contracts';
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { Access } from '../src/auth/access.decorator';
import { configureGateway } from '../src/gateway.app';
import { GatewayConfig } from '../src/gateway.config';
import { GatewayModule } from '../src/gateway.module';
import { OVERSIZE_DRAIN_BYTES } from '../src/edge/body-parsers';
import { gatewayErrors } from '../src/http/error-envelope';

/** A stand-in identity: every member exists. */
@Controller()
class StandInIdentityConsumer {
  @HandleCommand(ResolveMember)
  resolve(@Payload() { workspaceId, memberId }: PayloadOf<typeof ResolveMember>) {
    return Promise.resolve({
      memberId,
      workspaceId,
      kind: 'human' as const,
      role: 'member' as const,
      displayName: 'conventions',
      email: null,
      timezone: 'UTC',
      workingHours: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
      plateCapacity: 6,
      version: 1,
      active: true,
    });
  }
}

@Module({ controllers: [StandInIdentityConsumer] })
class StandInIdentityModule {}

class ItemDto {
  @Matches(/^[a-z0-9_.-]{1,64}$/) event_type!: string;
  @IsOptional() @IsString() @MaxLength(256) external_id?: string;
}
class BatchDto {
  @IsArray() @ArrayMaxSize(3) @ValidateNested({ each: true }) @Type(() => ItemDto) events!: ItemDto[];
}

/** Routes that exist only in this test, to reach the gateway's conventions. */
@Controller('conventions')
class ConventionsTestController {
  @Post('echo')
  @Access('report')
  echo(@Body() body: BatchDto): { data: BatchDto } {
    return { data: body };
  }

  @Get('boom')
  @Access('read')
  boom(): never {
    throw new Error('connection string postgres://secret@db leaked?');
  }
}

@Module({ controllers: [ConventionsTestController] })
class ConventionsTestModule {}

/** The text a raw connection has received, awaited by pattern. */
function listen(socket: Socket) {
  let text = '';
  let wake: () => void = () => undefined;
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    wake();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    closed,
    clear: () => (text = ''),
    async until(pattern: RegExp): Promise<string> {
      const deadline = Date.now() + 10_000;
      while (!pattern.test(text)) {
        if (Date.now() > deadline || socket.destroyed) throw new Error(`no ${String(pattern)} in ${JSON.stringify(text)}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
      return text;
    },
  };
}

describe('gateway HTTP conventions (D-1 … D-4)', () => {
  let app: NestFastifyApplication;
  let base: string;
  const logged: string[] = [];
  const JWT_SECRET = `conventions-${randomUUID()}`;
  // A session JWT (D-11): these routes need a principal. Its member is resolved over Kafka by the stand-in identity
  // below (every member exists), since the gateway trusts no claim identity has not confirmed.
  let identity: { kafka: TestKafka; server: INestMicroservice } | undefined;
  const claims = { sub: randomUUID(), wid: randomUUID() }; // one member: resolved once, then cached
  const bearer = (): string => `Bearer ${jwt.sign(claims, JWT_SECRET, { expiresIn: 60 })}`;

  beforeAll(async () => {
    // A topic namespace where no service runs (other spec files run services in parallel).
    const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}conventions.`;
    const config = testConfig(GatewayConfig, {
      REQUEST_TIMEOUT_MS: '1500',
      BODY_LIMIT_BYTES: '2048',
      LOG_LEVEL: 'info',
      JWT_SECRET,
      KAFKA_TOPIC_PREFIX: prefix,
    });
    const setup = testKafka('conventions-setup', { KAFKA_TOPIC_PREFIX: prefix });
    await ensureTopics(await setup.client.admin(), allTopics(), prefix);
    await setup.close();
    const identityKafka = testKafka('conventions-identity', { KAFKA_TOPIC_PREFIX: prefix });
    const strategy = new KafkaContractTransport(identityKafka.client, identityKafka.logger, identityKafka.metrics, {
      commandTopic: 'identityCommands',
      commandGroup: 'identity',
    });
    const server = await NestFactory.createMicroservice(
      {
        module: StandInIdentityModule,
        providers: [
          { provide: LOGGER, useValue: identityKafka.logger },
          { provide: Metrics, useValue: identityKafka.metrics },
        ],
      },
      { strategy, logger: false },
    );
    await server.listen();
    identity = { kafka: identityKafka, server };
    // Log lines are captured, not printed: the test reads what an operator would see.
    const logger = createLogger('gateway', 'info', config.INSTANCE_ID, { write: (line: string) => logged.push(line) });
    const metrics = new Metrics('gateway');
    app = await createHttpApp(
      { module: ConventionsTestModule, imports: [GatewayModule.forRoot(config, logger, metrics)] },
      { config, logger, metrics, errors: gatewayErrors(logger), bodyLimit: config.BODY_LIMIT_BYTES, configure: configureGateway },
    );
    base = `http://127.0.0.1:${boundPort(app)}`;
  });

  afterAll(async () => {
    await app?.close();
    await identity?.server.close();
    await identity?.kafka.close();
  });

  const openSocket = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const { port } = new URL(base);
      const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
      socket.once('error', reject);
    });

  const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${base}${path}`, { method: 'POST', body, headers: { authorization: bearer(), ...headers } });

  it('accepts a valid body under /v1 and echoes X-Request-Id (D-4)', async () => {
    const res = await post('/v1/conventions/echo', JSON.stringify({ events: [{ event_type: 'deploy' }] }), {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': 'client-req-1',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('client-req-1');
    expect(await res.json()).toEqual({ data: { events: [{ event_type: 'deploy' }] } });
  });

  it('generates a request id when none (or an unsafe one) is sent', async () => {
    const res = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rejects unknown fields and names every bad path (D-3, D-1 details)', async () => {
    const res = await post(
      '/v1/conventions/echo',
      JSON.stringify({ events: [{ event_type: 'ok' }, { event_type: 'Bad Type', surprise: 1 }], extra: true }),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; details: Array<{ path: string }> } };
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.details.map((d) => d.path).sort()).toEqual(['events[1].event_type', 'events[1].surprise', 'extra']);
  });

  it.each([
    ['malformed JSON', () => post('/v1/conventions/echo', '{"events": ['), 400, 'INVALID_JSON'],
    ['an empty JSON body', () => post('/v1/conventions/echo', ''), 400, 'INVALID_JSON'],
    [
      'an oversize body',
      () => post('/v1/conventions/echo', JSON.stringify({ events: [{ event_type: 'x'.repeat(4000) }] })),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'an unsupported media type',
      () => post('/v1/conventions/echo', 'events=1', { 'content-type': 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'a form body',
      () => post('/v1/conventions/echo', 'a=1', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['an unknown route', () => fetch(`${base}/v1/nowhere`), 404, 'NOT_FOUND'],
    ['a route outside /v1', () => fetch(`${base}/conventions/boom`), 404, 'NOT_FOUND'],
  ])('answers %s with the envelope', async (_name, request, status, code) => {
    const res = await request();
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe('string');
    expect(Object.keys(body)).toEqual(['error']);
  });

  it('answers an oversize upload 413 while it is still being sent, reads it to its end and keeps the connection', async () => {
    // A client whose upload is refused early must still read the answer: the gateway reads and discards the rest of a
    // declared body instead of resetting the connection under it, and the same connection serves the next request.
    const socket = await openSocket();
    const heard = listen(socket);
    const declared = 2048 * 200;
    socket.write(
      `POST /v1/conventions/echo HTTP/1.1\r\nHost: x\r\nAuthorization: ${bearer()}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(4096, 0x20));
    const refusal = await heard.until(/\r\n\r\n\{"error":\{[^}]*\}\}/);
    expect(refusal).toMatch(/^HTTP\/1\.1 413 /);
    expect(refusal).toContain('"code":"PAYLOAD_TOO_LARGE"');
    expect(refusal.toLowerCase()).not.toContain('connection: close');
    for (let sent = 4096; sent < declared; sent += 32_768) {
      socket.write(Buffer.alloc(Math.min(32_768, declared - sent), 0x20));
      await new Promise((r) => setTimeout(r, 5));
    }
    heard.clear();
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await heard.until(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\n/)).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
  });

  it('still closes the connection after a 413 whose declared body is too large to read through', async () => {
    const socket = await openSocket();
    const heard = listen(socket);
    socket.write(
      `POST /v1/conventions/echo HTTP/1.1\r\nHost: x\r\nAuthorization: ${bearer()}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${OVERSIZE_DRAIN_BYTES + 1}\r\n\r\n`,
    );
    const refusal = await heard.until(/\r\n\r\n\{"error":\{[^}]*\}\}/);
    expect(refusal).toMatch(/^HTTP\/1\.1 413 /);
    expect(refusal.toLowerCase()).toContain('connection: close');
    await heard.closed;
  });

  it('answers an internal error with 500 INTERNAL, no stack or cause, and logs it with the request id', async () => {
    const res = await fetch(`${base}/v1/conventions/boom`, { headers: { 'x-request-id': 'req-boom', authorization: bearer() } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'INTERNAL', message: 'Internal error (request id req-boom).' } });
    expect(text).not.toContain('postgres://');
    expect(text).not.toContain('at ');
    const line = logged.find((l) => l.includes('"msg":"internal error"'));
    expect(line).toBeDefined();
    const entry = JSON.parse(line ?? '{}') as { level?: string; requestId?: string; err?: { message?: string } };
    expect(entry).toMatchObject({ level: 'error', requestId: 'req-boom' });
    expect(entry.err?.message).toContain('leaked');
  });

  it('answers 503 UNAVAILABLE within the bound when services do not reply (none run here)', async () => {
    const started = Date.now();
    const res = await fetch(`${base}/status`);
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; details: Array<{ path: string }> } };
    expect(body.error.code).toBe('UNAVAILABLE');
    expect(body.error.details.map((d) => d.path).sort()).toEqual([...SERVICE_NAMES].sort());
    expect(elapsed).toBeLessThan(1500 + 1500);
  });

  it('reports ready (Kafka, no consumer crashed, its reply consumer) and exposes metrics', async () => {
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({
      data: { status: 'ready', checks: { kafka: 'up', consumers: 'up', replies: 'up' } },
    });
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/worktrack_http_request_duration_seconds_count\{[^}]*status="415"/);
    expect(text).toMatch(/worktrack_rpc_duration_seconds_count\{[^}]*outcome="timeout"/);
  });
});
