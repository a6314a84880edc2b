import type { ConsoleSettings } from '../../src/console-settings';

type Oidc = NonNullable<ConsoleSettings['oidc']>;

/** The console's own callback path; registered at the identity provider as its redirect URI. */
export const CALLBACK_PATH = '/console/oidc-callback';
const PENDING = 'mos-console-oidc';

interface Pending {
  state: string;
  verifier: string;
  /** The page to show after signing in. */
  returnTo: string;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function randomString(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

async function discover(oidc: Oidc): Promise<{ authorization_endpoint: string; token_endpoint: string }> {
  const response = await fetch(`${oidc.issuer}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`the identity provider's discovery document did not load (${response.status})`);
  return (await response.json()) as { authorization_endpoint: string; token_endpoint: string };
}

function redirectUri(): string {
  return `${window.location.origin}${CALLBACK_PATH}`;
}

/** Authorization Code with PKCE (S256): remembers the verifier and the page in this tab, then goes to the provider. */
export async function startOidcSignIn(oidc: Oidc): Promise<void> {
  const { authorization_endpoint } = await discover(oidc);
  const pending: Pending = {
    state: randomString(),
    verifier: randomString(),
    returnTo: window.location.pathname + window.location.search,
  };
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier)));
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(authorization_endpoint);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: oidc.clientId,
    redirect_uri: redirectUri(),
    scope: oidc.scope,
    state: pending.state,
    code_challenge: base64url(digest),
    code_challenge_method: 'S256',
    ...(oidc.resource ? { resource: oidc.resource } : {}),
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  window.location.assign(url.toString());
}

/**
 * On the callback page: checks the state, trades the code (with the verifier) for an access token, and puts the
 * page the user came from back in the address bar, so the code does not stay in the URL or the history.
 */
export async function finishOidcSignIn(oidc: Oidc): Promise<string> {
  const params = new URLSearchParams(window.location.search);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as Pending | null;
  sessionStorage.removeItem(PENDING);
  window.history.replaceState(null, '', pending?.returnTo ?? '/console/');
  if (params.get('error'))
    throw new Error(`the identity provider refused the sign-in: ${params.get('error_description') ?? params.get('error')}`);
  if (!pending || params.get('state') !== pending.state)
    throw new Error('the sign-in answer does not match a sign-in started here; sign in again');
  const { token_endpoint } = await discover(oidc);
  const response = await fetch(token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code') ?? '',
      redirect_uri: redirectUri(),
      client_id: oidc.clientId,
      code_verifier: pending.verifier,
      ...(oidc.resource ? { resource: oidc.resource } : {}),
    }),
  });
  const body = (await response.json()) as { access_token?: string; error_description?: string; error?: string };
  if (!response.ok || !body.access_token)
    throw new Error(`the identity provider gave no token: ${body.error_description ?? body.error ?? response.status}`);
  return body.access_token;
}
