import { ConfigError, loadConfig } from '@worktrack/platform';
import { DEV_JWT_SECRET, GatewayConfig } from './gateway.config';

describe('GatewayConfig', () => {
  it('runs on the development JWT secret outside production', () => {
    expect(loadConfig(GatewayConfig, { NODE_ENV: 'development' }).JWT_SECRET).toBe(DEV_JWT_SECRET);
  });

  it('refuses the development JWT secret in production', () => {
    expect(() => loadConfig(GatewayConfig, { NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig(GatewayConfig, { NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(loadConfig(GatewayConfig, { NODE_ENV: 'production', JWT_SECRET: 'a-real-secret-from-the-vault' }).NODE_ENV).toBe('production');
  });

  it('bounds the request timeout', () => {
    expect(() => loadConfig(GatewayConfig, { REQUEST_TIMEOUT_MS: '10' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(loadConfig(GatewayConfig, {}).REQUEST_TIMEOUT_MS).toBe(5000);
  });
});
