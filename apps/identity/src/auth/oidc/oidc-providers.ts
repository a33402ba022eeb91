import { OIDC_PROVIDER_ID } from '@worktrack/contracts';

/** D-41: one single sign-on provider as configured in `OIDC_PROVIDERS`. */
export interface OidcProviderConfig {
  id: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  /** The workspace's name (created when missing, as D-14). */
  workspace: string;
  /** Lower-cased; empty: any domain. */
  allowed_email_domains: string[];
  allow_signup: boolean;
}

const DOMAIN = /^[a-z0-9.-]{1,253}$/;
const nonBlank = (v: unknown, max: number): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= max;

/**
 * Parses `OIDC_PROVIDERS` (a JSON array). Problems name the provider and the
 * field, never a value (a client secret must not reach a log). An `http:`
 * issuer is accepted only outside production.
 */
export function parseOidcProviders(json: string, production: boolean): { providers: OidcProviderConfig[]; issues: string[] } {
  const issues: string[] = [];
  let raw: unknown;
  try {
    raw = JSON.parse(json.trim() === '' ? '[]' : json);
  } catch {
    return { providers: [], issues: ['OIDC_PROVIDERS: must be a JSON array'] };
  }
  if (!Array.isArray(raw)) return { providers: [], issues: ['OIDC_PROVIDERS: must be a JSON array'] };
  const providers: OidcProviderConfig[] = [];
  const seen = new Set<string>();
  raw.forEach((entry: unknown, index) => {
    const where = `OIDC_PROVIDERS[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      issues.push(`${where}: must be an object`);
      return;
    }
    const p = entry as Record<string, unknown>;
    const problems: string[] = [];
    if (typeof p.id !== 'string' || !OIDC_PROVIDER_ID.test(p.id)) problems.push('id must be lower-case letters, digits, - or _ (1 to 64)');
    else if (seen.has(p.id)) problems.push('id is used twice');
    if (!nonBlank(p.name, 200)) problems.push('name is required (up to 200 characters)');
    let issuer: URL | null = null;
    try {
      issuer = typeof p.issuer === 'string' ? new URL(p.issuer) : null;
    } catch {
      issuer = null;
    }
    if (!issuer || (issuer.protocol !== 'https:' && issuer.protocol !== 'http:')) problems.push('issuer must be an https: URL');
    else if (issuer.protocol === 'http:' && production) problems.push('issuer must be https: when NODE_ENV=production');
    if (!nonBlank(p.client_id, 512)) problems.push('client_id is required');
    if (!nonBlank(p.client_secret, 4096)) problems.push('client_secret is required');
    if (!nonBlank(p.workspace, 200)) problems.push('workspace is required (a name, up to 200 characters)');
    const domains = p.allowed_email_domains ?? [];
    if (!Array.isArray(domains) || !domains.every((d) => typeof d === 'string' && DOMAIN.test(d.toLowerCase()))) {
      problems.push('allowed_email_domains must be an array of domain names');
    }
    if (p.allow_signup !== undefined && typeof p.allow_signup !== 'boolean') problems.push('allow_signup must be true or false');
    const label = typeof p.id === 'string' && OIDC_PROVIDER_ID.test(p.id) ? `${where} (${p.id})` : where;
    if (problems.length > 0) {
      issues.push(`${label}: ${problems.join('; ')}`);
      return;
    }
    seen.add(p.id as string);
    providers.push({
      id: p.id as string,
      name: (p.name as string).trim(),
      issuer: p.issuer as string,
      client_id: p.client_id as string,
      client_secret: p.client_secret as string,
      workspace: (p.workspace as string).trim(),
      allowed_email_domains: (domains as string[]).map((d) => d.toLowerCase()),
      allow_signup: p.allow_signup === true,
    });
  });
  return { providers, issues };
}

const hasControl = (text: string): boolean => [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/**
 * D-41: `return_to` as a path of the app's own origin, or `/`: a scheme,
 * `//host`, a backslash or a control character sends the browser home.
 */
export function sameOriginPath(returnTo: string | undefined, publicUrl: string): string {
  if (!returnTo || !returnTo.startsWith('/') || returnTo.startsWith('//') || returnTo.includes('\\') || hasControl(returnTo)) return '/';
  try {
    const base = new URL(publicUrl);
    const url = new URL(returnTo, base);
    if (url.origin !== base.origin) return '/';
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return '/';
  }
}
