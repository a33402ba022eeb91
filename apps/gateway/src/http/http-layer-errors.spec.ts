import { clientErrorBody } from './http-layer-errors';
import { toErrorResponse } from './error-response';

describe('HTTP-layer errors in the D-1 envelope', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'HEADERS_TOO_LARGE'],
    ['HPE_INVALID_METHOD', 404, 'NOT_FOUND'],
    ['HPE_INVALID_URL', 400, 'VALIDATION_FAILED'],
    [undefined, 400, 'VALIDATION_FAILED'],
  ])('a parser error %s is %i %s', (code, status, errorCode) => {
    expect(clientErrorBody(code)).toMatchObject({ status, body: { error: { code: errorCode, message: expect.any(String) as string } } });
  });

  it('maps router errors by what they are', () => {
    expect(toErrorResponse({ code: 'FST_ERR_BAD_URL', statusCode: 400 }, 'r')).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
    expect(toErrorResponse({ code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414 }, 'r')).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
  });
});
