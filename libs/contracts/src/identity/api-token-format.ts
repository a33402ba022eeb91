/**
 * D-8: `wt_<8 lowercase base32 chars>_<43 base62 chars>`. The short segment is
 * the public token id; the rest is the secret, of which only a hash is stored.
 */
const TOKEN_ID = '[a-z2-7]{8}';
const TOKEN_SECRET = '[0-9A-Za-z]{43}';
export const API_TOKEN_PATTERN = new RegExp(`^wt_(${TOKEN_ID})_(${TOKEN_SECRET})$`);
export const TOKEN_ID_PATTERN = new RegExp(`^${TOKEN_ID}$`);
/** The same form anywhere inside a string (D-18 secret detection). */
export const API_TOKEN_ANYWHERE = new RegExp(`wt_${TOKEN_ID}_${TOKEN_SECRET}`);

export interface ParsedApiToken {
  tokenId: string;
  secret: string;
}

export function parseApiToken(value: string): ParsedApiToken | undefined {
  const match = API_TOKEN_PATTERN.exec(value);
  return match ? { tokenId: match[1], secret: match[2] } : undefined;
}

export const formatApiToken = (tokenId: string, secret: string): string => `wt_${tokenId}_${secret}`;

/**
 * The token the documentation shows (D-37): the D-8 layout with an id in
 * capitals, so it reads as a token, is refused by its shape, and matches no
 * secret scanner (ours, D-18, included) in a repository that copies it.
 */
export const EXAMPLE_API_TOKEN = `wt_EXAMPLE0_${'X'.repeat(43)}`;
