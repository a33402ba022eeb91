import { ConfigError } from '../config/load-config';
import { hostedEnv, hostedPortVariable, hostedServices } from './host';

describe('WORKTRACK_SERVICES (issue 17)', () => {
  it('unset or empty: the service whose main runs, alone', () => {
    expect(hostedServices(undefined, 'plate')).toEqual(['plate']);
    expect(hostedServices('  ', 'plate')).toEqual(['plate']);
  });

  it('a list: those services in the order given (spaces allowed)', () => {
    expect(hostedServices('identity, ingestion,correlation ,sessions,plate,connectors', 'identity')).toEqual([
      'identity',
      'ingestion',
      'correlation',
      'sessions',
      'plate',
      'connectors',
    ]);
    expect(hostedServices('sessions,plate', 'plate')).toEqual(['sessions', 'plate']);
  });

  it.each([
    ['identity,gateway', 'identity', 'unknown service "gateway"'],
    ['identity,,plate', 'identity', 'unknown service ""'],
    ['plate,plate', 'plate', 'plate is named twice'],
    ['sessions,plate', 'identity', 'must name identity, whose main runs'],
  ])('refuses %p from %s’s main: %s', (value, own, problem) => {
    expect(() => hostedServices(value, own as 'identity')).toThrow(ConfigError);
    expect(() => hostedServices(value, own as 'identity')).toThrow(problem);
  });

  it('each hosted service takes its port from <NAME>_HTTP_PORT, never the shared HTTP_PORT', () => {
    expect(hostedPortVariable('correlation')).toBe('CORRELATION_HTTP_PORT');
    const env = { HTTP_PORT: '3000', SESSIONS_HTTP_PORT: '4104', KAFKA_TOPIC_PREFIX: 'x.' };
    expect(hostedEnv(env, 'sessions')).toEqual({ HTTP_PORT: '4104', SESSIONS_HTTP_PORT: '4104', KAFKA_TOPIC_PREFIX: 'x.' });
    expect(hostedEnv(env, 'plate')).toEqual({ SESSIONS_HTTP_PORT: '4104', KAFKA_TOPIC_PREFIX: 'x.' });
    expect(env.HTTP_PORT).toBe('3000');
  });
});
