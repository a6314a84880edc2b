import { jwtVerify, errors, JWTVerifyGetKey, JWTPayload } from 'jose';
import { UnauthenticatedError } from '../errors';

/** Asymmetric algorithms only: `none` and HMAC are refused before any key is looked up. */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export type TokenVerifier = (token: string) => Promise<JWTPayload>;

function reason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'token expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `token claim "${err.claim}" rejected`;
  if (err instanceof errors.JOSEAlgNotAllowed) return 'token algorithm not allowed';
  if (err instanceof errors.JWKSNoMatchingKey) return 'token signed with an unknown key';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'token signature invalid';
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JOSEError && err.code === 'ERR_JWKS_INVALID') {
    return 'signing keys unavailable';
  }
  return 'token malformed or invalid';
}

/** Verifies a bearer token's signature, issuer, audience and lifetime; the error says what failed in general terms. */
export function createTokenVerifier(options: { keys: JWTVerifyGetKey; issuer?: string; audience?: string }): TokenVerifier {
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, options.keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: 5,
      });
      return payload;
    } catch (err) {
      throw new UnauthenticatedError(`invalid bearer token: ${reason(err)}`, { cause: err });
    }
  };
}
