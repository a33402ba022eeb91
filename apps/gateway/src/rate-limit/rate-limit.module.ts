import { Module, type DynamicModule } from '@nestjs/common';
import { FailedAuthentications } from './failed-authentications';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter, RateLimitOptions, rateLimitOptions } from './rate-limiter';

/**
 * D-5 per-member rate limit: the Redis-backed `RateLimiter` and the
 * `RateLimitGuard` that applies it. Options are validated here (fail fast
 * at boot). Needs the platform's Metrics and LOGGER (PlatformModule).
 * The app registers the guard globally, after its auth guard:
 * `{ provide: APP_GUARD, useExisting: RateLimitGuard }`. Global, so that
 * every place that refuses a credential (the auth guard, the credential
 * screen, the provider hooks) answers failures through the one
 * `FailedAuthentications` (D-37).
 */
@Module({})
export class RateLimitModule {
  static forRoot(options: Partial<RateLimitOptions>): DynamicModule {
    return {
      module: RateLimitModule,
      global: true,
      providers: [{ provide: RateLimitOptions, useValue: rateLimitOptions(options) }, RateLimiter, RateLimitGuard, FailedAuthentications],
      exports: [RateLimiter, RateLimitGuard, FailedAuthentications],
    };
  }
}
