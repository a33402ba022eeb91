import { ConfigError, loadConfig } from '@worktrack/platform';
import { DEV_JWT_SECRET, GatewayConfig } from './gateway.config';

describe('GatewayConfig', () => {
  it('runs on the development JWT secret outside production', () => {
    expect(loadConfig(GatewayConfig, { NODE_ENV: 'development' }).JWT_SECRET).toBe(DEV_JWT_SECRET);
  });

  it('refuses the development JWT secret in production', () => {
    expect(() => loadConfig(GatewayConfig, { NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig(GatewayConfig, { NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(
      loadConfig(GatewayConfig, {
        NODE_ENV: 'production',
        JWT_SECRET: 'a-real-secret-from-the-vault',
        OPERATOR_TOKEN: 'operator-credential-from-the-vault',
      }).NODE_ENV,
    ).toBe('production');
  });

  it('refuses to start in production without the operator credential, and never echoes a short one', () => {
    expect(() => loadConfig(GatewayConfig, { NODE_ENV: 'production', JWT_SECRET: 'a-real-secret-from-the-vault' })).toThrow(
      /OPERATOR_TOKEN/,
    );
    let message = '';
    try {
      loadConfig(GatewayConfig, { OPERATOR_TOKEN: 'too-short' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/OPERATOR_TOKEN/);
    expect(message).not.toContain('too-short');
  });

  it('takes CORS origins as exact scheme://host[:port] entries, none by default', () => {
    expect(loadConfig(GatewayConfig, {}).corsAllowedOrigins).toEqual([]);
    expect(loadConfig(GatewayConfig, { CORS_ALLOWED_ORIGINS: 'https://app.example.com,http://localhost:5173' }).corsAllowedOrigins).toEqual(
      ['https://app.example.com', 'http://localhost:5173'],
    );
    for (const bad of ['*', 'https://app.example.com/', 'app.example.com', 'https://a.example.com, https://b.example.com']) {
      expect(() => loadConfig(GatewayConfig, { CORS_ALLOWED_ORIGINS: bad })).toThrow(/CORS_ALLOWED_ORIGINS/);
    }
  });

  it('takes the public URL as an origin (the default server of the OpenAPI document)', () => {
    expect(loadConfig(GatewayConfig, {}).PUBLIC_URL).toBe('http://localhost:3000');
    expect(loadConfig(GatewayConfig, { PUBLIC_URL: 'https://api.example.org' }).PUBLIC_URL).toBe('https://api.example.org');
    for (const bad of ['api.example.org', 'https://api.example.org/v1', 'ftp://api.example.org']) {
      expect(() => loadConfig(GatewayConfig, { PUBLIC_URL: bad })).toThrow(/PUBLIC_URL/);
    }
  });

  it('bounds the request timeout', () => {
    expect(() => loadConfig(GatewayConfig, { REQUEST_TIMEOUT_MS: '10' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(loadConfig(GatewayConfig, {}).REQUEST_TIMEOUT_MS).toBe(5000);
  });
});
