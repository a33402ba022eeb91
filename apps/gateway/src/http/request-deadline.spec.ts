import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { requestDeadline } from '@worktrack/platform';
import { registerRequestDeadline } from './request-deadline';

// What a route handler (and every command it sends) sees as the request's deadline.

@Controller()
class DeadlineController {
  @Get('deadline')
  async deadline(): Promise<{ deadline: number | null }> {
    await new Promise((r) => setTimeout(r, 10)); // across an await, as a guard's lookup and the command are
    return { deadline: requestDeadline.getStore() ?? null };
  }
}

@Module({ controllers: [DeadlineController] })
class DeadlineModule {}

describe('the request deadline', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(DeadlineModule, new FastifyAdapter(), { logger: false });
    registerRequestDeadline(app.getHttpAdapter().getInstance(), 5_000);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app.close();
  });

  it('runs each request’s handler with its own deadline, REQUEST_TIMEOUT_MS after it was received', async () => {
    const before = Date.now();
    const [a, b] = await Promise.all(
      [0, 1].map(async () => (await app.inject({ method: 'GET', url: '/deadline' })).json<{ deadline: number | null }>()),
    );
    const after = Date.now();
    for (const { deadline } of [a, b]) {
      expect(deadline).not.toBeNull();
      expect(deadline!).toBeGreaterThanOrEqual(before + 5_000);
      expect(deadline!).toBeLessThanOrEqual(after + 5_000);
    }
    // Outside a request: none.
    expect(requestDeadline.getStore()).toBeUndefined();
  });
});
