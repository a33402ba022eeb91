import { API_TOKEN_ANYWHERE, EXAMPLE_API_TOKEN, formatApiToken, parseApiToken } from './api-token-format';

describe('the D-8 token form', () => {
  it('parses a token into its public id and secret', () => {
    const secret = 'A1'.repeat(21) + 'z';
    expect(parseApiToken(formatApiToken('abcdefg2', secret))).toEqual({ tokenId: 'abcdefg2', secret });
    expect(parseApiToken(`wt_abcdefg2_${secret}x`)).toBeUndefined();
  });

  it('D-37: the documentation example reads as a token but is refused by its shape and matches no secret scan', () => {
    expect(EXAMPLE_API_TOKEN).toMatch(/^wt_[A-Z0-9]{8}_[0-9A-Za-z]{43}$/);
    expect(parseApiToken(EXAMPLE_API_TOKEN)).toBeUndefined();
    expect(API_TOKEN_ANYWHERE.test(`token: ${EXAMPLE_API_TOKEN}`)).toBe(false);
  });
});
