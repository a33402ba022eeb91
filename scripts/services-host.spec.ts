import { ConfigError } from '@worktrack/platform';
import { hostedEnv, hostedServices } from './services-host';

describe('WORKTRACK_SERVICES', () => {
  it('a list: those services in the order given (spaces allowed)', () => {
    expect(hostedServices('identity, ingestion,correlation ,sessions,plate,connectors,webhooks')).toEqual([
      'identity',
      'ingestion',
      'correlation',
      'sessions',
      'plate',
      'connectors',
      'webhooks',
    ]);
    expect(hostedServices('sessions,plate')).toEqual(['sessions', 'plate']);
  });

  it.each([
    [undefined, 'must name the services to host'],
    ['  ', 'must name the services to host'],
    ['identity,gateway', 'unknown service "gateway"'],
    ['identity,,plate', 'unknown service ""'],
    ['plate,plate', 'plate is named twice'],
  ])('refuses %p: %s', (value, problem) => {
    expect(() => hostedServices(value)).toThrow(ConfigError);
    expect(() => hostedServices(value)).toThrow(problem);
  });

  it('each hosted service takes its port from <NAME>_HTTP_PORT, never the shared HTTP_PORT', () => {
    const env = { HTTP_PORT: '3000', SESSIONS_HTTP_PORT: '4104', KAFKA_TOPIC_PREFIX: 'x.' };
    expect(hostedEnv(env, 'sessions')).toEqual({ HTTP_PORT: '4104', SESSIONS_HTTP_PORT: '4104', KAFKA_TOPIC_PREFIX: 'x.' });
    expect(hostedEnv(env, 'plate')).toEqual({ SESSIONS_HTTP_PORT: '4104', KAFKA_TOPIC_PREFIX: 'x.' });
    expect(env.HTTP_PORT).toBe('3000');
  });
});
