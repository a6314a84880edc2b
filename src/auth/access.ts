import type { MachinePrincipal, Principal } from './principal';

const JOB_TOKEN_REACH = 'a job token reaches only the completion route of its own job';

/**
 * The tenants a tenant machine client acts for: those listed for it in MACHINE_CLIENTS, and without scope `admin`
 * only the one its `client_id` names (spec part 5: the claim must equal the tenant). One rule for the tenant routes,
 * job reads and job searches, so no route shows what another refuses.
 */
function machineTenants(principal: MachinePrincipal): string[] {
  const listed = principal.access?.access === 'tenant' ? principal.access.tenants : [];
  return principal.admin ? listed : listed.filter((t) => t === principal.clientId);
}

/** Whether the principal may act on tenant `clientId` through a route under /v2/clients/{client_id}/... */
export function tenantAccessProblem(principal: Principal, clientId: string): string | undefined {
  if (principal.kind === 'job') return JOB_TOKEN_REACH;
  if (principal.kind === 'human') {
    if (principal.groups.includes('admin') || principal.groups.includes(`client:${clientId}`)) return undefined;
    return `user needs group client:${clientId}`;
  }
  const access = principal.access;
  if (!access) return `machine client ${principal.clientId} is not configured for any tenant`;
  if (access.access === 'platform') return undefined;
  if (!access.tenants.includes(clientId)) return `machine client ${principal.clientId} has no access to tenant ${clientId}`;
  if (!machineTenants(principal).includes(clientId)) {
    return `token client_id ${principal.clientId} does not match tenant ${clientId}`;
  }
  return undefined;
}

/** Global model registry routes: platform machine clients and every human user (permissions still apply). */
export function globalAccessProblem(principal: Principal): string | undefined {
  if (principal.kind === 'job') return JOB_TOKEN_REACH;
  if (principal.kind === 'human') return undefined;
  if (!principal.access) return `machine client ${principal.clientId} is not configured for any tenant`;
  if (principal.access.access !== 'platform') return 'tenant clients may not use the global model registry routes';
  return undefined;
}

/**
 * What every tenant shares or what spans every tenant (docs/authorization.md, "Platform-only"): the model registry's
 * writes and the jobs of no tenant, tenants and their limits, platform-wide webhooks. Platform machine clients and
 * users in group `admin` only: scope `admin` grants operations, never reach, so a token bound to tenants is refused.
 */
export function platformAccessProblem(principal: Principal): string | undefined {
  if (principal.kind === 'job') return JOB_TOKEN_REACH;
  if (principal.kind === 'human') {
    return principal.groups.includes('admin')
      ? undefined
      : 'this changes what every tenant shares or spans every tenant: it needs group admin, not only scope admin';
  }
  if (principal.access?.access === 'platform') return undefined;
  return `machine client ${principal.clientId} is bound to tenants; this changes what every tenant shares or spans every tenant`;
}

/** Jobs of a tenant are visible to that tenant's callers; jobs of no tenant only to platform clients and admins. */
export function canSeeJob(principal: Principal, jobClientId: string | null): boolean {
  // A job token's one job is checked by id where it is used (the completion); it sees no job by tenant.
  if (principal.kind === 'job') return false;
  if (principal.kind === 'human') {
    if (principal.groups.includes('admin')) return true;
    return jobClientId !== null && principal.groups.includes(`client:${jobClientId}`);
  }
  if (!principal.access) return false;
  if (principal.access.access === 'platform') return true;
  return jobClientId !== null && machineTenants(principal).includes(jobClientId);
}

/** Tenants a list of clients is narrowed to; undefined means every tenant. */
export function visibleTenants(principal: Principal): string[] | undefined {
  if (principal.kind === 'job') return [];
  if (principal.kind === 'human') {
    if (principal.groups.includes('admin')) return undefined;
    return principal.groups.filter((g) => g.startsWith('client:')).map((g) => g.slice('client:'.length));
  }
  if (principal.access?.access === 'platform') return undefined;
  return machineTenants(principal);
}
