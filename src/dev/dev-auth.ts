import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ensurePrivateDir } from '../paths';
import { createServer, Server } from 'node:http';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, JWK, SignJWT, KeyLike } from 'jose';

import { DEV_ISSUER, DEV_PLATFORM_CLIENT } from '../config';

export { DEV_ISSUER, DEV_PLATFORM_CLIENT };

/** The dev signing key, kept under .data/dev-auth so tokens survive restarts. Never used when AUTH_JWKS_URL is set. */
export async function loadDevKey(dataDir: string): Promise<{ privateKey: KeyLike; publicJwk: JWK }> {
  const file = path.join(dataDir, 'dev-auth', 'signing-key.jwk.json');
  if (!existsSync(file)) {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: `dev-${Date.now()}`, alg: 'RS256' };
    ensurePrivateDir(path.dirname(file));
    writeFileSync(file, JSON.stringify(jwk), { mode: 0o600 });
  }
  const jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  // The public half: every private RSA member left out.
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = jwk;
  return { privateKey: (await importJWK(jwk, 'RS256')) as KeyLike, publicJwk: { ...publicJwk, use: 'sig' } };
}

/** Serves the dev JWK set on 127.0.0.1, so the API verifies dev tokens exactly as it verifies an IdP's. */
export async function serveJwks(publicJwk: JWK, port = 0): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/jwks.json' ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(req.url === '/jwks.json' ? JSON.stringify({ keys: [publicJwk] }) : '{}');
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${bound}/jwks.json`, server };
}

export async function mintDevToken(
  privateKey: KeyLike,
  kid: string | undefined,
  claims: Record<string, unknown>,
  expiresIn = '12h',
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid })
    .setIssuer(DEV_ISSUER)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(privateKey);
}
