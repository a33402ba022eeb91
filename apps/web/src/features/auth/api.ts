import { acceptSignIn, clearToken } from '../../lib/auth';
import { api, request, unwrap } from '../../lib/api-client';

/** D-41: the configured single sign-on providers. */
export interface Provider {
  id: string;
  name: string;
}

export interface Credentials {
  email: string;
  password: string;
  totp_code?: string;
  recovery_code?: string;
}

/** D-39 / D-40: password sign-in; keeps the access token in memory (the refresh cookie is set by the answer). */
export async function login(credentials: Credentials): Promise<void> {
  acceptSignIn(await unwrap(api.POST('/auth/login', { body: credentials })));
}

/** D-38: accepting an invite creates the member and signs it in. */
export async function acceptInvite(input: { token: string; password: string; display_name?: string; timezone?: string }): Promise<void> {
  acceptSignIn(await unwrap(api.POST('/auth/accept-invite', { body: input })));
}

/** D-41: how people sign in here: the providers, and whether password sign-in is on. */
export interface SignInMethods {
  providers: Provider[];
  passwordLogin: boolean;
}

export async function signInMethods(): Promise<SignInMethods> {
  const body = await request<{ data: Provider[]; meta?: { password_login?: boolean } }>('GET', '/auth/providers');
  return { providers: body.data, passwordLogin: body.meta?.password_login !== false };
}

/** Where a provider's sign-in starts (a full navigation: the provider redirects back to `returnTo`). */
export function providerStartUrl(id: string, returnTo: string): string {
  return `/v1/auth/oidc/${encodeURIComponent(id)}/start?return_to=${encodeURIComponent(returnTo)}`;
}

export async function logout(): Promise<void> {
  try {
    await api.POST('/auth/logout');
  } finally {
    clearToken();
  }
}
