import { generateKeyPair, exportJWK, SignJWT, createLocalJWKSet, JWK, KeyLike } from 'jose';

export const ISSUER = 'https://idp.test.local/';
export const AUDIENCE = 'model-orchestration';

/** A signing key and its JWK set, standing in for the identity provider in route tests. */
export class TestIdp {
  private constructor(
    readonly privateKey: KeyLike,
    readonly publicJwk: JWK,
    readonly kid: string,
  ) {}

  static async create(kid = 'test-key-1'): Promise<TestIdp> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
    return new TestIdp(privateKey, publicJwk, kid);
  }

  jwks() {
    return createLocalJWKSet({ keys: [this.publicJwk] });
  }

  async sign(
    claims: Record<string, unknown>,
    options: { expiresIn?: string | number; notBefore?: string | number; issuer?: string; audience?: string; kid?: string } = {},
  ) {
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? this.kid })
      .setIssuedAt()
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setExpirationTime(options.expiresIn ?? '5m');
    if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
    return jwt.sign(this.privateKey);
  }

  /** A machine token with the given scope names (prefixed with platform/). */
  machine(clientId: string, scopes: string[], extra: Record<string, unknown> = {}) {
    return this.sign({ client_id: clientId, scope: scopes.map((s) => `platform/${s}`).join(' '), sub: clientId, ...extra });
  }

  human(username: string, groups: string[], scopes: string[] = []) {
    return this.sign({
      username,
      sub: username,
      'idp:groups': groups,
      ...(scopes.length ? { scope: scopes.map((s) => `platform/${s}`).join(' ') } : {}),
    });
  }
}
