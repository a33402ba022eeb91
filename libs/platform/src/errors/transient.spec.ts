import { DatabaseError } from 'pg';
import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isTransientInfrastructureError } from './transient';

const pgError = (code: string, message = 'x'): DatabaseError => Object.assign(new DatabaseError(message, 0, 'error'), { code });

describe('transient dependency failures (UNAVAILABLE, never 500)', () => {
  it.each(['57P01', '57P02', '57P03', '08006', '08003', '53300', '40001', '40P01'])(
    'SQLSTATE %s is transient, also wrapped by TypeORM',
    (code) => {
      expect(isTransientInfrastructureError(pgError(code))).toBe(true);
      expect(isTransientInfrastructureError(new QueryFailedError('select 1', [], pgError(code)))).toBe(true);
    },
  );

  it('a terminated connection, a reset socket, a lost broker leader are transient', () => {
    expect(isTransientInfrastructureError(new Error('Connection terminated unexpectedly'))).toBe(true);
    // What the chaos test's terminated backends produced at COMMIT (TypeORM's QueryRunnerAlreadyReleasedError).
    expect(isTransientInfrastructureError(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isTransientInfrastructureError(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
    expect(isTransientInfrastructureError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(
      isTransientInfrastructureError(Object.assign(new Error('x'), { name: 'KafkaJSProtocolError', type: 'NOT_LEADER_FOR_PARTITION' })),
    ).toBe(true);
    expect(
      isTransientInfrastructureError(new Error('outer', { cause: Object.assign(new Error('x'), { name: 'KafkaJSConnectionError' }) })),
    ).toBe(true);
  });

  it('constraint violations, bad SQL and plain bugs stay internal', () => {
    for (const code of ['23505', '23503', '42P01', '22P02']) expect(isTransientInfrastructureError(pgError(code))).toBe(false);
    expect(isTransientInfrastructureError(new TypeError('cannot read properties of undefined'))).toBe(false);
    expect(isTransientInfrastructureError(null)).toBe(false);
    expect(isTransientInfrastructureError('Connection terminated')).toBe(false);
  });
});
