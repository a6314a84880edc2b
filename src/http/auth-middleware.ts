import type { Context, Next } from 'koa';
import type { AuthConfig } from '../config';
import type { TokenVerifier } from '../auth/verifier';
import { principalFromClaims, jobPrincipal, Principal } from '../auth/principal';
import { isJobToken, type JobTokens } from '../auth/job-tokens';
import { tenantAccessProblem, globalAccessProblem, platformAccessProblem } from '../auth/access';
import type { Operation } from '../openapi/operations';
import { ForbiddenError, UnauthenticatedError } from '../errors';

function bearerToken(ctx: Context): string {
  const header = ctx.get('Authorization');
  if (!header) throw new UnauthenticatedError('missing bearer token', { challenge: 'Bearer' });
  const match = /^Bearer ([A-Za-z0-9_\-.~+/]+=*)$/.exec(header);
  if (!match)
    throw new UnauthenticatedError('Authorization header must be "Bearer <token>"', { challenge: 'Bearer error="invalid_request"' });
  return match[1];
}

/** The token's claims, from the fair queue's verification of the same token when it made one. */
async function verifiedOnce(ctx: Context, token: string, verify: TokenVerifier) {
  const verified = ctx.state.verified;
  if (verified?.token !== token) return verify(token);
  // The verifier's own error (401 or 503), as the route would have met it.
  if (verified.error !== undefined) throw verified.error as Error;
  return verified.claims!;
}

/** The two checks of spec part 5 for one operation: permission, then tenant reach. Deny by default. */
export function authorize(op: Operation, deps: { verify: TokenVerifier; auth: AuthConfig; jobTokens?: JobTokens }) {
  return async (ctx: Context, next: Next) => {
    if (op.permission === 'public') return next();
    const token = bearerToken(ctx);
    if (isJobToken(token)) {
      // Told apart by its header, a job token goes to its own verifier and reaches one operation (docs/authorization.md).
      if (!deps.jobTokens) throw new UnauthenticatedError('invalid bearer token: job tokens are not configured (JOB_TOKEN_KEYS)');
      const { jobId } = await deps.jobTokens.verify(token);
      if (op.id !== 'completeJob') throw new ForbiddenError('a job token is accepted only by the completion route of its job');
      ctx.state.principal = jobPrincipal(jobId);
      return next();
    }
    const claims = await verifiedOnce(ctx, token, deps.verify);
    const principal: Principal | undefined = principalFromClaims(claims, deps.auth);
    if (!principal) throw new UnauthenticatedError('token identifies neither a machine client (client_id) nor a user (username or groups)');
    ctx.state.principal = principal;

    if (op.permission === 'admin') {
      if (!principal.admin) throw new ForbiddenError('this operation is reserved to administrators (scope admin or group admin)');
    } else if (!principal.permissions.has(op.permission)) {
      throw new ForbiddenError(`missing permission ${op.permission} (scope ${deps.auth.scopePrefix}${op.permission})`);
    }

    let problem: string | undefined;
    if (principal.kind === 'machine' && !principal.access)
      problem = `machine client ${principal.clientId} is not configured for any tenant`;
    else if (op.tenancy === 'tenant') problem = tenantAccessProblem(principal, (ctx.params as Record<string, string>).client_id);
    else if (op.tenancy === 'global') problem = globalAccessProblem(principal);
    else if (op.tenancy === 'platform') problem = platformAccessProblem(principal);
    if (problem) throw new ForbiddenError(`tenant access denied: ${problem}`);
    return next();
  };
}
