/** Operation permissions, and the scopes that grant them (spec part 5). */
export const PERMISSIONS = [
  'read_models',
  'write_models',
  'train_model',
  'run_inference',
  'complete_job',
  'client_read',
  'service_init',
  'manage_services',
  'manage_domains',
  'manage_webhooks',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What each scope name (without its prefix) grants. `admin` grants everything and is handled apart. */
export const SCOPE_GRANTS: Record<string, readonly Permission[]> = {
  read_models: ['read_models'],
  write_models: ['write_models'],
  train_model: ['train_model'],
  run_inference: ['run_inference'],
  client_read: ['client_read'],
  service_init: ['service_init'],
  manage_services: ['manage_services'],
  manage_domains: ['manage_domains', 'manage_services'],
  complete_job: ['complete_job'],
  manage_webhooks: ['manage_webhooks'],
};

export interface ScopeGrant {
  permissions: Set<Permission>;
  admin: boolean;
}

/** Maps a space-separated scope claim to permissions; scopes without the configured prefix grant nothing. */
export function permissionsFromScopes(scopeClaim: unknown, prefix: string): ScopeGrant {
  const scopes = typeof scopeClaim === 'string' ? scopeClaim.split(' ').filter(Boolean) : [];
  const permissions = new Set<Permission>();
  let admin = false;
  for (const scope of scopes) {
    if (!scope.startsWith(prefix)) continue;
    const name = scope.slice(prefix.length);
    if (name === 'admin') admin = true;
    for (const p of SCOPE_GRANTS[name] ?? []) permissions.add(p);
  }
  if (admin) PERMISSIONS.forEach((p) => permissions.add(p));
  return { permissions, admin };
}
