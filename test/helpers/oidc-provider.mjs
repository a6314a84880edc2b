// A real OAuth 2.0 authorization server (oidc-provider) for the end-to-end auth test.
// Issues RS256 JWT access tokens with the client credentials grant; prints ISSUER=... when listening.
// An optional third argument adds a public client for the console's Authorization Code + PKCE sign-in:
// {"client_id", "redirect_uri", "scope", "accounts": {"<user>": ["client:acme", ...]}}, with the provider's own
// login and consent pages (any password); its users' access tokens carry `username` and their groups.
import Provider from 'oidc-provider';
import { generateKeyPair, exportJWK } from 'jose';

const [port, clientsJson, consoleJson] = process.argv.slice(2);
const consoleClient = consoleJson ? JSON.parse(consoleJson) : undefined;
const issuer = `http://127.0.0.1:${port}`;
const audience = 'urn:model-orchestration';
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'e2e-key', alg: 'RS256', use: 'sig' };

const clients = JSON.parse(clientsJson).map((c) => ({
  client_id: c.client_id,
  client_secret: c.client_secret,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_post',
}));
if (consoleClient) {
  // `native`: its loopback redirect URI matches any port (RFC 8252, 7.3), so the IdP can start before the app.
  clients.push({
    client_id: consoleClient.client_id,
    application_type: 'native',
    grant_types: ['authorization_code'],
    redirect_uris: [consoleClient.redirect_uri],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
}
// The scopes each client may request of the API (the resource server), not OpenID scopes.
const allowedScopes = Object.fromEntries(JSON.parse(clientsJson).map((c) => [c.client_id, c.scope]));
if (consoleClient) allowedScopes[consoleClient.client_id] = consoleClient.scope;

const provider = new Provider(issuer, {
  clients,
  cookies: { keys: ['e2e-only-cookie-key'] },
  jwks: { keys: [jwk] },
  // The console calls discovery and the token endpoint from the browser.
  clientBasedCORS: () => Boolean(consoleClient),
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  extraTokenClaims: (_ctx, token) =>
    token.kind === 'AccessToken' && token.accountId
      ? { username: token.accountId, 'idp:groups': consoleClient?.accounts?.[token.accountId] ?? [] }
      : undefined,
  features: {
    devInteractions: { enabled: Boolean(consoleClient) },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource, client) => ({
        scope: allowedScopes[client.clientId],
        audience: resource,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
provider.listen(Number(port), '127.0.0.1', () => console.log(`ISSUER=${issuer}`));
process.on('SIGTERM', () => process.exit(0));
