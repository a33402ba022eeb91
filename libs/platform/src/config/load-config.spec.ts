import { IsBoolean, IsInt, Min } from 'class-validator';
import { AppConfig, ServiceConfig } from './base.config';
import { EnvBool, EnvInt } from './env.decorators';
import { ConfigError, loadConfig } from './load-config';

class SampleConfig extends AppConfig {
  @EnvInt() @IsInt() @Min(1) WORKERS = 4;
  @EnvBool() @IsBoolean() FEATURE = false;
}

describe('loadConfig (fail-fast typed config)', () => {
  it('uses the defaults, ignores unrelated variables, treats empty as unset', () => {
    const config = loadConfig(SampleConfig, { PATH: '/bin', WORKERS: '', HOME: '/root' });
    expect(config).toMatchObject({ WORKERS: 4, FEATURE: false, KAFKA_BROKERS: '127.0.0.1:9092', KAFKA_TOPIC_PREFIX: '' });
    expect(config.brokers).toEqual(['127.0.0.1:9092']);
  });

  it('converts numbers and booleans', () => {
    expect(loadConfig(SampleConfig, { WORKERS: '8', FEATURE: 'yes', KAFKA_BROKERS: 'a:1,b:2' })).toMatchObject({
      WORKERS: 8,
      FEATURE: true,
    });
    expect(loadConfig(SampleConfig, { FEATURE: '0' }).FEATURE).toBe(false);
  });

  it('lists every problem at once, naming the variable and the value', () => {
    let error: unknown;
    try {
      loadConfig(SampleConfig, { WORKERS: 'many', FEATURE: 'maybe', HTTP_PORT: '70000', NODE_ENV: 'staging' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['WORKERS', 'FEATURE', 'HTTP_PORT', 'NODE_ENV']) expect(problems).toContain(name);
    expect(problems).toContain('"many"');
  });

  it('validates service variables', () => {
    expect(() => loadConfig(ServiceConfig, { DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL: must be a postgres:\/\/ URL/);
    expect(loadConfig(ServiceConfig, { MIGRATE_ON_START: 'true' }).MIGRATE_ON_START).toBe(true);
  });
});
