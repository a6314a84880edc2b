import type { JWTPayload } from 'jose';
import type { AuthConfig, MachineClientConfig } from '../config';
import { permissionsFromScopes, Permission, PERMISSIONS } from './permissions';
import { UnauthenticatedError } from '../errors';

/** The longest identity claim taken: audit fields and the Idempotency-Key owner are stored and indexed. */
export const MAX_CLAIM_LENGTH = 512;

/**
 * Identity claims end up in the database (audit fields, the Idempotency-Key owner) and in queries (groups name
 * tenants), so they are input like any other: a NUL, which Postgres cannot store in text, another control
 * character, a lone surrogate (refused in jsonb) or an overlong value refuses the token, naming the claim.
 */
function checkClaim(name: string, value: unknown): void {
  if (typeof value !== 'string') return;
  let problem: string | undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) problem = 'holds a control character';
  else if (/\p{Cs}/u.test(value)) problem = 'is not well-formed Unicode (a lone surrogate)';
  else if (value.length > MAX_CLAIM_LENGTH) problem = `is longer than ${MAX_CLAIM_LENGTH} characters`;
  if (problem) throw new UnauthenticatedError(`invalid bearer token: claim "${name}" ${problem}`);
}

interface BasePrincipal {
  subject: string;
  permissions: Set<Permission>;
  /** Full operation access: scope `admin`, or group `admin` for humans. */
  admin: boolean;
}

export interface MachinePrincipal extends BasePrincipal {
  kind: 'machine';
  clientId: string;
  /** Absent when the client is not configured in MACHINE_CLIENTS: it then reaches no tenant. */
  access?: MachineClientConfig;
}

export interface HumanPrincipal extends BasePrincipal {
  kind: 'human';
  username: string;
  groups: string[];
}

/** A handler holding a job token (src/auth/job-tokens.ts): it may complete job `jobId` and do nothing else. */
export interface JobPrincipal extends BasePrincipal {
  kind: 'job';
  jobId: string;
}

export type Principal = MachinePrincipal | HumanPrincipal | JobPrincipal;

/** The principal of a verified job token: permission `complete_job`, reach limited to its job. */
export function jobPrincipal(jobId: string): JobPrincipal {
  return { kind: 'job', subject: `job:${jobId}`, jobId, permissions: new Set<Permission>(['complete_job']), admin: false };
}

/**
 * Machine tokens carry `client_id` and `scope`; human tokens carry `username` or the groups claim.
 * A human in group `admin` has every permission; other humans get permissions from their scopes like machines.
 */
export function principalFromClaims(claims: JWTPayload, auth: AuthConfig): Principal | undefined {
  for (const name of ['sub', 'username', 'client_id']) checkClaim(name, claims[name]);
  const grant = permissionsFromScopes(claims.scope, auth.scopePrefix);
  const rawGroups = claims[auth.groupsClaim];
  const groups = Array.isArray(rawGroups) ? rawGroups.filter((g): g is string => typeof g === 'string') : [];
  groups.forEach((g) => checkClaim(auth.groupsClaim, g));
  const subject = typeof claims.sub === 'string' ? claims.sub : '';
  if (typeof claims.client_id === 'string' && claims.client_id && rawGroups === undefined && claims.username === undefined) {
    return {
      kind: 'machine',
      subject: subject || claims.client_id,
      clientId: claims.client_id,
      permissions: grant.permissions,
      admin: grant.admin,
      access: Object.prototype.hasOwnProperty.call(auth.machineClients, claims.client_id)
        ? auth.machineClients[claims.client_id]
        : undefined,
    };
  }
  if (typeof claims.username === 'string' || rawGroups !== undefined) {
    const admin = groups.includes('admin') || grant.admin;
    return {
      kind: 'human',
      subject,
      username: typeof claims.username === 'string' ? claims.username : subject,
      groups,
      permissions: admin ? new Set(PERMISSIONS) : grant.permissions,
      admin,
    };
  }
  return undefined;
}

/** How audit fields name the caller: a machine client by its client id, a human by username (else subject). */
export function actorOf(principal: Principal | undefined): string | null {
  if (!principal) return null;
  if (principal.kind === 'machine') return principal.clientId;
  if (principal.kind === 'job') return principal.subject;
  return principal.username || principal.subject || null;
}
