import { createServer } from 'node:http';
import { DEV_ISSUER, DEV_PLATFORM_CLIENT, loadDevKey, mintDevToken } from '../dev/dev-auth';

/**
 * The identity provider of docker compose's evaluation profile: serves the dev signing key's JWK set on
 * EVAL_IDP_PORT (all interfaces: the API and the worker reach it by its service name) and prints an admin token for
 * the platform client `dev-platform`. The key is kept in EVAL_IDP_DATA_DIR so tokens survive restarts. Refused
 * unless AUTH_DEV_ISSUER=on: anyone who can read that folder can mint any token.
 */
async function run() {
  if (process.env.AUTH_DEV_ISSUER !== 'on')
    throw new Error('the evaluation identity provider runs only with AUTH_DEV_ISSUER=on (docs/deploy.md, "Compose")');
  const dataDir = process.env.EVAL_IDP_DATA_DIR || '/data';
  const port = Number(process.env.EVAL_IDP_PORT || 8090);
  const { privateKey, publicJwk } = await loadDevKey(dataDir);
  const server = createServer((req, res) => {
    const found = req.url === '/jwks.json';
    res.writeHead(found ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(found ? JSON.stringify({ keys: [publicJwk] }) : '{}');
  });
  await new Promise<void>((r) => server.listen(port, '0.0.0.0', r));
  const token = await mintDevToken(privateKey, publicJwk.kid, {
    sub: DEV_PLATFORM_CLIENT,
    client_id: DEV_PLATFORM_CLIENT,
    scope: `${process.env.AUTH_SCOPE_PREFIX ?? 'platform/'}admin`,
  });
  console.log(`EVALUATION ONLY: dev signing key, issuer ${DEV_ISSUER}; JWK set on :${port}/jwks.json`);
  console.log(`admin token (12 h): ${token}`);
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

run().catch((err) => {
  console.error('evaluation identity provider failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
