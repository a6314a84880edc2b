// A real OAuth 2.0 authorization server (oidc-provider) for the end-to-end auth test.
// Issues RS256 JWT access tokens with the client credentials grant; prints ISSUER=... when listening.
import Provider from 'oidc-provider';
import { generateKeyPair, exportJWK } from 'jose';

const [port, clientsJson] = process.argv.slice(2);
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
// The scopes each client may request of the API (the resource server), not OpenID scopes.
const allowedScopes = Object.fromEntries(JSON.parse(clientsJson).map((c) => [c.client_id, c.scope]));

const provider = new Provider(issuer, {
  clients,
  cookies: { keys: ['e2e-only-cookie-key'] },
  jwks: { keys: [jwk] },
  features: {
    devInteractions: { enabled: false },
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
