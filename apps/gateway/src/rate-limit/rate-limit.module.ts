import { Module, type DynamicModule } from '@nestjs/common';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter, RateLimitOptions, rateLimitOptions } from './rate-limiter';

/**
 * D-5 per-member rate limit: the Redis-backed `RateLimiter` and the
 * `RateLimitGuard` that applies it. Options are validated here (fail fast
 * at boot). Needs the platform's Metrics and LOGGER (PlatformModule).
 * The app registers the guard globally, after its auth guard:
 * `{ provide: APP_GUARD, useExisting: RateLimitGuard }`; the per-address
 * limit on unauthenticated failures is a Fastify hook
 * (`registerUnauthenticatedLimit`, issue 14) registered at configuration.
 */
@Module({})
export class RateLimitModule {
  static forRoot(options: Partial<RateLimitOptions>): DynamicModule {
    return {
      module: RateLimitModule,
      providers: [{ provide: RateLimitOptions, useValue: rateLimitOptions(options) }, RateLimiter, RateLimitGuard],
      exports: [RateLimiter, RateLimitGuard],
    };
  }
}
