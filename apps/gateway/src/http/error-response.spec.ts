import { BadRequestException, NotFoundException } from '@nestjs/common';
import { ErrorCode } from '@worktrack/contracts';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { DomainError } from '@worktrack/platform';
import { httpStatusOf, toErrorResponse } from './error-response';

/** D-2, as written in decisions.md. */
const D2: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  PROTOTYPE_POISONING: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  SESSION_STATE_CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  INVALID_CURSOR: 400,
  ASSIGNEE_NOT_FOUND: 400,
  PLATE_DATE_IN_PAST: 400,
  PAYLOAD_CONTAINS_SECRET: 400,
  RATE_LIMITED: 429,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  INVALID_CREDENTIALS: 401,
  SECOND_FACTOR_REQUIRED: 401,
  TWO_FACTOR_REQUIRED: 403,
  MEMBER_EXISTS: 409,
};

const pgError = (code: string, message = 'x'): DatabaseError => Object.assign(new DatabaseError(message, 0, 'error'), { code });

describe('D-2 error codes', () => {
  it('maps every code to the status decisions.md gives it', () => {
    expect(Object.keys(D2).sort()).toEqual(Object.values(ErrorCode).sort());
    for (const code of Object.values(ErrorCode)) expect([code, httpStatusOf(code)]).toEqual([code, D2[code]]);
  });

  it('keeps a domain error’s code, message and details', () => {
    const r = toErrorResponse(
      new DomainError(ErrorCode.SESSION_STATE_CONFLICT, 'Session is paused.', [{ path: 'state', issue: 'paused' }]),
      'r1',
    );
    expect(r).toEqual({
      status: 409,
      internal: false,
      body: { error: { code: 'SESSION_STATE_CONFLICT', message: 'Session is paused.', details: [{ path: 'state', issue: 'paused' }] } },
    });
  });

  it('maps framework errors by their codes', () => {
    expect(toErrorResponse({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }, 'r').body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(toErrorResponse({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }, 'r').body.error.code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect(toErrorResponse({ code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 }, 'r').body.error.code).toBe('INVALID_JSON');
    expect(toErrorResponse(new NotFoundException(), 'r').body.error.code).toBe('NOT_FOUND');
    expect(toErrorResponse(new BadRequestException(), 'r').body.error.code).toBe('VALIDATION_FAILED');
  });

  it('hides anything unexpected behind INTERNAL with the request id', () => {
    const r = toErrorResponse(new TypeError('cannot read x of undefined at /src/secret.ts:10'), 'req-9');
    expect(r).toEqual({
      status: 500,
      internal: true,
      body: { error: { code: 'INTERNAL', message: 'Internal error (request id req-9).' } },
    });
  });

  it('says UNAVAILABLE (503) for a transient dependency failure (issue 19), never the driver message', () => {
    const res = toErrorResponse(
      new QueryFailedError('insert', [], pgError('57P01', 'terminating connection due to administrator command')),
      'req-1',
    );
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe(ErrorCode.UNAVAILABLE);
    expect(JSON.stringify(res.body)).not.toContain('administrator');
    expect(toErrorResponse(new TypeError('boom'), 'req-2').status).toBe(500);
  });
});
