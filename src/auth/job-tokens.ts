import { SignJWT, jwtVerify, decodeProtectedHeader, errors } from 'jose';
import type { JobTokenKey } from '../config';
import { UnauthenticatedError } from '../errors';

/**
 * Job-scoped completion tokens (docs/authorization.md, "Job tokens"): an HS256 JWT the worker signs at dispatch
 * and the API verifies with the same key, no database read. It names one job and one use, the completion of that
 * job, and expires with the job's completion deadline; the job's state refuses it once the job is final (409).
 */
export const JOB_TOKEN_TYPE = 'mos-job+jwt';
const ISSUER = 'model-orchestration-service';
const AUDIENCE = 'mos:complete_job';

/** Whether a bearer token is a job token (its header says so), to route it to this verifier and no other. */
export function isJobToken(token: string): boolean {
  try {
    return decodeProtectedHeader(token).typ === JOB_TOKEN_TYPE;
  } catch {
    return false;
  }
}

export interface JobTokens {
  /** A token that completes `jobId` until `expiresAt`; undefined when no key is configured. */
  issue(jobId: string, expiresAt: Date): Promise<string | undefined>;
  /** The job a token completes; 401 when it is not one of ours, altered or expired. */
  verify(token: string): Promise<{ jobId: string }>;
}

export function createJobTokens(keys: JobTokenKey[], clockSkewSeconds = 5): JobTokens {
  const byKid = new Map(keys.map((k) => [k.kid, k.secret]));
  return {
    async issue(jobId, expiresAt) {
      const signing = keys[0];
      if (!signing) return undefined;
      return new SignJWT({ job_id: jobId })
        .setProtectedHeader({ alg: 'HS256', typ: JOB_TOKEN_TYPE, kid: signing.kid })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setSubject(`job:${jobId}`)
        .setIssuedAt()
        .setExpirationTime(Math.ceil(expiresAt.getTime() / 1000))
        .sign(signing.secret);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(
          token,
          (header) => {
            const secret = header.kid ? byKid.get(header.kid) : undefined;
            if (!secret) throw new UnauthenticatedError('invalid job token: signed with an unknown or retired key');
            return secret;
          },
          {
            algorithms: ['HS256'],
            typ: JOB_TOKEN_TYPE,
            issuer: ISSUER,
            audience: AUDIENCE,
            clockTolerance: clockSkewSeconds,
            requiredClaims: ['exp', 'job_id'],
          },
        );
        if (typeof payload.job_id !== 'string') throw new UnauthenticatedError('invalid job token: no job_id');
        return { jobId: payload.job_id };
      } catch (err) {
        if (err instanceof UnauthenticatedError) throw err;
        const why = err instanceof errors.JWTExpired ? 'expired (the job is past its deadline)' : 'signature or claims invalid';
        throw new UnauthenticatedError(`invalid job token: ${why}`, { cause: err });
      }
    },
  };
}
