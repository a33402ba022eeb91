import { parseOidcProviders, sameOriginPath } from './oidc-providers';

const provider = {
  id: 'corp',
  name: 'Corp SSO',
  issuer: 'https://idp.example.com',
  client_id: 'wt',
  client_secret: 'very-secret-value',
  workspace: 'Acme',
  allowed_email_domains: ['Acme.example'],
  allow_signup: true,
};

describe('single sign-on providers (D-41)', () => {
  it('reads OIDC_PROVIDERS, lower-casing the allowed domains', () => {
    expect(parseOidcProviders(JSON.stringify([provider]), true)).toEqual({
      providers: [{ ...provider, allowed_email_domains: ['acme.example'] }],
      issues: [],
    });
    expect(parseOidcProviders('', true)).toEqual({ providers: [], issues: [] });
  });

  it('names what is wrong, never a value; an http: issuer only outside production', () => {
    const { issues } = parseOidcProviders(
      JSON.stringify([{ ...provider, issuer: 'http://idp.local' }, { ...provider, id: 'Bad Id', client_secret: '' }, provider, provider]),
      true,
    );
    expect(issues).toEqual([
      'OIDC_PROVIDERS[0] (corp): issuer must be https: when NODE_ENV=production',
      'OIDC_PROVIDERS[1]: id must be lower-case letters, digits, - or _ (1 to 64); client_secret is required',
      'OIDC_PROVIDERS[3] (corp): id is used twice',
    ]);
    expect(issues.join(' ')).not.toContain('very-secret-value');
    expect(parseOidcProviders(JSON.stringify([{ ...provider, issuer: 'http://idp.local' }]), false).issues).toEqual([]);
    expect(parseOidcProviders('{"id":1}', false).issues).toEqual(['OIDC_PROVIDERS: must be a JSON array']);
  });

  it('keeps return_to on the app’s own origin, else sends the browser home', () => {
    const app = 'https://app.example.com';
    expect(sameOriginPath('/sessions?range=week#top', app)).toBe('/sessions?range=week#top');
    for (const bad of ['//evil.example', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', '/x\n/y', '', undefined]) {
      expect(sameOriginPath(bad, app)).toBe('/');
    }
  });
});
