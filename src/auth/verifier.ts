import { jwtVerify, decodeProtectedHeader, errors, JWTVerifyGetKey, JWTPayload, JWTHeaderParameters } from 'jose';
import type { Logger } from 'pino';
import { ServiceError, UnauthenticatedError } from '../errors';
import type { AuthConfig } from '../config';
import { createRemoteKeyStore } from './key-store';

/** Asymmetric algorithms only: `none` and HMAC are refused before any key is looked up. */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Clock skew allowed on exp, nbf and iat when the configuration does not say. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 5;

export type TokenVerifier = (token: string) => Promise<JWTPayload>;

function reason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'token expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `token claim "${err.claim}" rejected`;
  if (err instanceof errors.JOSEAlgNotAllowed) return 'token algorithm not allowed';
  if (err instanceof errors.JWKSNoMatchingKey) return 'token signed with an unknown key';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'token signature invalid';
  return 'token malformed or invalid';
}

/** The header checks jose leaves to us: `crit` names extensions we would have to understand, and we understand none. */
function headerProblem(token: string): string | undefined {
  let header;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return 'token malformed or invalid';
  }
  if ('crit' in header) return 'token header lists critical extensions (crit) this service does not understand';
  return undefined;
}

/**
 * Verifies a bearer token's signature, issuer, audience and lifetime: `exp` is required; `exp`, `nbf` and `iat`
 * are checked with `clockSkewSeconds` of tolerance (an `iat` in the future is refused). The error says what
 * failed in general terms; a key set that cannot be had is a 503, not a 401.
 */
export function createTokenVerifier(options: {
  keys: JWTVerifyGetKey;
  issuer?: string;
  audience?: string;
  clockSkewSeconds?: number;
  cacheSize?: number;
}): TokenVerifier {
  const skew = options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  // A caller sends the same token with every request for its lifetime; its signature check (an RSA or EC verify)
  // is a measurable share of a read. Verified tokens are remembered until their `exp` (+ skew), by their exact text.
  const cacheSize = options.cacheSize ?? 10_000;
  // The key is still looked up on every hit (no crypto): an unusable key set (503), a key no longer published
  // (401) and the background refresh behave as for a fresh token.
  const verified = new Map<string, { payload: JWTPayload; header: JWTHeaderParameters; until: number }>();
  const verifyFresh = async (token: string): Promise<JWTPayload> => {
    const problem = headerProblem(token);
    if (problem) throw new UnauthenticatedError(`invalid bearer token: ${problem}`);
    try {
      const { payload } = await jwtVerify(token, options.keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: skew,
        requiredClaims: ['exp'],
      });
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + skew) {
        throw new UnauthenticatedError('invalid bearer token: token claim "iat" is in the future');
      }
      return payload;
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      throw new UnauthenticatedError(`invalid bearer token: ${reason(err)}`, { cause: err });
    }
  };
  return async (token) => {
    const hit = verified.get(token);
    if (hit && Date.now() < hit.until) {
      const [protectedHeader, payload, signature] = token.split('.');
      try {
        await options.keys(hit.header, { protected: protectedHeader, payload, signature });
        return hit.payload;
      } catch (err) {
        verified.delete(token);
        if (err instanceof ServiceError) throw err;
        throw new UnauthenticatedError(`invalid bearer token: ${reason(err)}`, { cause: err });
      }
    }
    if (hit) verified.delete(token);
    const payload = await verifyFresh(token);
    if (cacheSize > 0 && typeof payload.exp === 'number') {
      if (verified.size >= cacheSize) verified.delete(verified.keys().next().value!);
      verified.set(token, { payload, header: decodeProtectedHeader(token) as JWTHeaderParameters, until: (payload.exp + skew) * 1000 });
    }
    return payload;
  };
}

/** The verifier of a deployment: the configured identity provider's keys, cached through its outages. */
export function verifierFromConfig(auth: AuthConfig, log?: Logger): TokenVerifier {
  if (!auth.jwksUrl) throw new Error('AUTH_JWKS_URL is not set');
  const store = createRemoteKeyStore({ url: auth.jwksUrl, ...auth.jwks, log });
  return createTokenVerifier({ keys: store.getKey, issuer: auth.issuer, audience: auth.audience, clockSkewSeconds: auth.clockSkewSeconds });
}
