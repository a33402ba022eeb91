/**
 * D-8: `wt_<8 lowercase base32 chars>_<43 base62 chars>`. The short segment is
 * the public token id; the rest is the secret, of which only a hash is stored.
 */
export const API_TOKEN_PATTERN = /^wt_([a-z2-7]{8})_([0-9A-Za-z]{43})$/;
export const TOKEN_ID_PATTERN = /^[a-z2-7]{8}$/;

export interface ParsedApiToken {
  tokenId: string;
  secret: string;
}

export function parseApiToken(value: string): ParsedApiToken | undefined {
  const match = API_TOKEN_PATTERN.exec(value);
  return match ? { tokenId: match[1], secret: match[2] } : undefined;
}

export const formatApiToken = (tokenId: string, secret: string): string => `wt_${tokenId}_${secret}`;
