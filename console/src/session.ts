import { permissionsFromScopes, type Permission } from '../../src/auth/permissions';
import type { ConsoleSettings } from '../../src/console-settings';

const KEY = 'mos-console-token';

/** Who the token says the caller is, read from its payload for display and for hiding what it may not do. */
export interface Caller {
  name: string;
  /** Tenants a user's groups name (`client:acme`); empty for platform callers and machine clients. */
  tenants: string[];
  admin: boolean;
  /**
   * May reach what every tenant shares (registry writes, tenants and their limits): a user in group `admin`, or a
   * machine client with scope admin (whether the client is bound to tenants is the API's configuration, so its 403
   * is the final word there).
   */
  platform: boolean;
  permissions: ReadonlySet<Permission>;
  expiresAt?: number;
}

/**
 * The token lives in sessionStorage (this tab only, gone when it closes), never in the URL; other tabs of the origin
 * get it from a signed-in tab over a BroadcastChannel (session-share.ts), never from storage they share.
 */
export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (token: string) => sessionStorage.setItem(KEY, token),
  clear: () => sessionStorage.removeItem(KEY),
};

function payloadOf(token: string): Record<string, unknown> | undefined {
  const part = token.split('.')[1];
  if (!part) return undefined;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(decodeURIComponent(escape(json))) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Reads the caller from a JWT's claims; the API still decides every call, this only shapes what is offered. */
export function callerOf(token: string, settings: ConsoleSettings): Caller | undefined {
  const claims = payloadOf(token);
  if (!claims) return undefined;
  const rawGroups = claims[settings.groupsClaim];
  const groups = Array.isArray(rawGroups) ? rawGroups.filter((g): g is string => typeof g === 'string') : [];
  const grant = permissionsFromScopes(claims.scope, settings.scopePrefix);
  const groupAdmin = groups.includes('admin');
  const permissions = groupAdmin
    ? permissionsFromScopes(`${settings.scopePrefix}admin`, settings.scopePrefix).permissions
    : grant.permissions;
  const name = [claims.username, claims.client_id, claims.sub].find((v): v is string => typeof v === 'string') ?? 'unknown caller';
  return {
    name,
    tenants: groups.filter((g) => g.startsWith('client:')).map((g) => g.slice('client:'.length)),
    admin: grant.admin || groupAdmin,
    platform:
      groupAdmin || (grant.admin && typeof claims.client_id === 'string' && rawGroups === undefined && claims.username === undefined),
    permissions,
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined,
  };
}
