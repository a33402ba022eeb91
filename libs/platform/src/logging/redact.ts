/**
 * Credential redaction for log lines. Applied by rule to every object and
 * message the platform logger writes, so no call site has to remember it:
 *
 * - fields whose name says credential (authorization, cookie, set-cookie,
 *   token, secret, password, api key, signature, …) are replaced whole;
 * - query parameters with such names inside URLs (`?access_token=…`) keep
 *   their name and lose their value;
 * - anything shaped like a credential anywhere in a string — a D-8 API token
 *   (`wt_<id>_<secret>`), a JWT, a `Bearer …` value, a URL's user:password —
 *   is replaced where it stands.
 */
export const REDACTED = '[REDACTED]';

/** Field and query-parameter names that hold credentials (matched case-insensitively, ignoring `-` and `_`). */
const SECRET_NAME =
  /^(authorization|proxyauthorization|cookie|setcookie|password|passwd|secret|clientsecret|signingsecret|webhooksecret|token|accesstoken|refreshtoken|idtoken|apitoken|apikey|privatekey|jwt|credential|credentials|signature|xhubsignature256|xhubsignature|xslacksignature|operatortoken)$/;
/** Names ending this way are credentials too (JWT_SECRET, CURSOR_SECRET, OPERATOR_TOKEN, CONNECTOR_SECRET_KEYS, DATABASE_PASSWORD…). */
const SECRET_SUFFIX = /(secret|secretkeys|token|password|passwd|apikey|privatekey|signature)$/;
/**
 * People's access (D-38 … D-42): password digests and the hashes of refresh,
 * invite and recovery secrets stand for the secret itself; one-time codes too.
 * Single sign-on (D-41): the PKCE verifier, the nonce, the callback's query
 * (code and state), the authorization URL (state and nonce), the binding
 * cookie and the providers' configuration (client secrets).
 */
const SIGN_IN_SECRET =
  /(digest|sha256|sha256s|totpcode|recoverycode|recoverycodes|refreshcookie|wtrefresh|privatejwk|totpsecret|totppending|codeverifier|nonce|callbackquery|authorizationurl|wtoidc|oidcproviders)$/;

const normalise = (name: string): string => name.toLowerCase().replace(/[-_.\s]/g, '');

/** Whether a field or parameter of this name holds a credential. */
export const isSecretName = (name: string): boolean => {
  const n = normalise(name);
  return SECRET_NAME.test(n) || SECRET_SUFFIX.test(n) || SIGN_IN_SECRET.test(n);
};

/**
 * Value shapes that are credentials wherever they appear, each with a cheap
 * precondition so the common log line (no credential in it) costs a few
 * `includes` calls rather than a regular expression per rule.
 */
type Rule = { when: (s: string) => boolean; pattern: RegExp; replace: (substring: string, ...groups: string[]) => string };
const RULES: Rule[] = [
  // D-8 API tokens, and anything that starts like one (a truncated token is still a secret; the id alone is not).
  { when: (s) => s.includes('wt_'), pattern: /wt_[a-z2-7]{8}_[0-9A-Za-z]+/g, replace: () => REDACTED },
  // JWTs: three base64url segments, the first two JSON objects ("eyJ").
  { when: (s) => s.includes('eyJ'), pattern: /eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, replace: () => REDACTED },
  // Authorization schemes written into text.
  {
    when: (s) => /bearer|basic/i.test(s),
    pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi,
    replace: (_m, scheme) => `${scheme} ${REDACTED}`,
  },
  // user:password@ in URLs (postgres://user:pw@host, redis://:pw@host).
  {
    when: (s) => s.includes('://') && s.includes('@'),
    pattern: /([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]+@/gi,
    replace: (_m, prefix) => `${prefix}:${REDACTED}@`,
  },
  // GitHub and Slack signatures.
  { when: (s) => s.includes('='), pattern: /\b(sha256|sha1|v0)=[0-9a-f]{16,}/gi, replace: (_m, alg) => `${alg}=${REDACTED}` },
];

/**
 * Short names that are credentials as query parameters (`?key=…`, `?sig=…`,
 * OAuth's `?code=…` and `?state=…`, OpenID's `?nonce=…`), though too common
 * to redact as log fields.
 */
const QUERY_ONLY_SECRET_NAME = /^(key|sig|auth|code|pass|pwd|hash|state|nonce|codeverifier)$/;

/** Whether a query parameter of this name holds a credential. */
export const isSecretQueryName = (name: string): boolean => isSecretName(name) || QUERY_ONLY_SECRET_NAME.test(normalise(name));

/** Query parameters named like credentials, in a URL or a bare query string: `?access_token=abc` → `?access_token=[REDACTED]`. */
const QUERY_PARAM = /([?&;])([^=&;#\s]+)=([^&;#\s]*)/g;

export function redactString(value: string): string {
  if (value.length < 8) return value;
  let out = value;
  if (out.includes('=') && (out.includes('?') || out.includes('&') || out.includes(';'))) {
    out = out.replace(QUERY_PARAM, (whole, sep: string, name: string) => {
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // keep the raw name
      }
      return isSecretQueryName(decoded) ? `${sep}${name}=${REDACTED}` : whole;
    });
  }
  for (const rule of RULES) if (rule.when(out)) out = out.replace(rule.pattern, rule.replace);
  return out;
}

const MAX_DEPTH = 8;

/**
 * A copy of `value` with credentials redacted (see the module comment).
 * Errors become plain objects of their type, message and stack (redacted
 * too). Deep or cyclic structures are cut at a bounded depth.
 */
export function redact(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH || seen.has(value)) return '[…]';
  seen.add(value);
  if (value instanceof Error) {
    const err = value as Error & { code?: unknown };
    return {
      type: err.name,
      message: redactString(err.message),
      ...(err.stack ? { stack: redactString(err.stack) } : {}),
      ...(err.code !== undefined ? { code: redact(err.code, depth + 1, seen) } : {}),
    };
  }
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen));
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretName(k) && v !== null && v !== undefined && v !== '' ? REDACTED : redact(v, depth + 1, seen);
  }
  return out;
}
