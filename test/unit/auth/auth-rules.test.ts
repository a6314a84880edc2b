import { permissionsFromScopes, PERMISSIONS } from '../../../src/auth/permissions';
import { principalFromClaims } from '../../../src/auth/principal';
import { tenantAccessProblem, globalAccessProblem, platformAccessProblem, canSeeJob, visibleTenants } from '../../../src/auth/access';
import { loadConfig, AuthConfig } from '../../../src/config';

const auth: AuthConfig = {
  ...loadConfig({}).auth,
  scopePrefix: 'platform/',
  groupsClaim: 'idp:groups',
  machineClients: {
    ops: { access: 'platform', tenants: [] },
    acme: { access: 'tenant', tenants: ['acme'] },
    batch: { access: 'tenant', tenants: ['acme', 'globex'] },
  },
};
const principal = (claims: Record<string, unknown>) => principalFromClaims(claims, auth)!;

describe('scope → permission mapping', () => {
  it('maps each scope and lets manage_domains include manage_services', () => {
    expect([...permissionsFromScopes('platform/manage_domains', 'platform/').permissions].sort()).toEqual([
      'manage_domains',
      'manage_services',
    ]);
    expect([...permissionsFromScopes('platform/read_models platform/complete_job', 'platform/').permissions].sort()).toEqual([
      'complete_job',
      'read_models',
    ]);
  });

  it('grants every permission to admin', () => {
    const grant = permissionsFromScopes('platform/admin', 'platform/');
    expect(grant.admin).toBe(true);
    expect(grant.permissions.size).toBe(PERMISSIONS.length);
  });

  it('ignores scopes without the prefix and non-string claims', () => {
    expect(permissionsFromScopes('read_models other/admin', 'platform/').permissions.size).toBe(0);
    expect(permissionsFromScopes(['platform/admin'], 'platform/').admin).toBe(false);
  });
});

describe('principals', () => {
  it('reads machine tokens and their access class', () => {
    const p = principal({ client_id: 'acme', scope: 'platform/client_read' });
    expect(p).toMatchObject({ kind: 'machine', clientId: 'acme', access: { access: 'tenant' } });
    expect(principal({ client_id: 'stranger' })).toMatchObject({ kind: 'machine', access: undefined });
  });

  it('gives a human in group admin every permission, others their scopes', () => {
    expect(principal({ username: 'root', 'idp:groups': ['admin'] }).permissions.size).toBe(PERMISSIONS.length);
    expect([...principal({ username: 'al', 'idp:groups': ['client:acme'], scope: 'platform/client_read' }).permissions]).toEqual([
      'client_read',
    ]);
  });

  it('recognises neither without client_id, username or groups', () => {
    expect(principalFromClaims({ sub: 'x' }, auth)).toBeUndefined();
  });
});

describe('tenant access', () => {
  it('lets platform clients reach every tenant and the global routes', () => {
    const ops = principal({ client_id: 'ops' });
    expect(tenantAccessProblem(ops, 'anyone')).toBeUndefined();
    expect(globalAccessProblem(ops)).toBeUndefined();
  });

  it('keeps tenant clients to their tenants, their own client_id, and off the global routes', () => {
    const acme = principal({ client_id: 'acme' });
    expect(tenantAccessProblem(acme, 'acme')).toBeUndefined();
    expect(tenantAccessProblem(acme, 'globex')).toContain('no access');
    expect(globalAccessProblem(acme)).toContain('tenant clients');
    expect(tenantAccessProblem(principal({ client_id: 'batch' }), 'acme')).toContain('does not match');
  });

  it('lets the admin scope waive the client_id match but never widen the tenant set', () => {
    const batchAdmin = principal({ client_id: 'batch', scope: 'platform/admin' });
    expect(tenantAccessProblem(batchAdmin, 'acme')).toBeUndefined();
    expect(tenantAccessProblem(batchAdmin, 'initech')).toContain('no access');
  });

  it('needs group client:{id} for humans who are not admins', () => {
    expect(tenantAccessProblem(principal({ username: 'al', 'idp:groups': ['client:acme'] }), 'acme')).toBeUndefined();
    expect(tenantAccessProblem(principal({ username: 'al', 'idp:groups': ['client:acme'] }), 'globex')).toContain('client:globex');
    expect(tenantAccessProblem(principal({ username: 'root', 'idp:groups': ['admin'] }), 'globex')).toBeUndefined();
  });

  it('shows jobs of no tenant only to platform clients and admins', () => {
    expect(canSeeJob(principal({ client_id: 'ops' }), null)).toBe(true);
    expect(canSeeJob(principal({ client_id: 'acme' }), null)).toBe(false);
    expect(canSeeJob(principal({ client_id: 'acme' }), 'acme')).toBe(true);
    expect(canSeeJob(principal({ username: 'al', 'idp:groups': ['client:acme'] }), null)).toBe(false);
    expect(canSeeJob(principal({ username: 'root', 'idp:groups': ['admin'] }), null)).toBe(true);
  });

  it('shows a tenant client the jobs of the tenants its routes reach: without admin, the one its client_id names', () => {
    // The tenant routes refuse batch on acme (client_id differs): job reads and searches keep to the same rule.
    expect(tenantAccessProblem(principal({ client_id: 'batch' }), 'acme')).toContain('does not match');
    expect(canSeeJob(principal({ client_id: 'batch' }), 'acme')).toBe(false);
    expect(visibleTenants(principal({ client_id: 'batch' }))).toEqual([]);
    const batchAdmin = principal({ client_id: 'batch', scope: 'platform/admin' });
    expect(canSeeJob(batchAdmin, 'globex')).toBe(true);
    expect(canSeeJob(batchAdmin, 'initech')).toBe(false);
  });

  it('gives what spans every tenant to platform reach only: scope admin on a tenant-bound token does not widen it', () => {
    expect(platformAccessProblem(principal({ client_id: 'ops', scope: 'platform/admin' }))).toBeUndefined();
    expect(platformAccessProblem(principal({ username: 'root', 'idp:groups': ['admin'] }))).toBeUndefined();
    expect(platformAccessProblem(principal({ client_id: 'acme', scope: 'platform/admin' }))).toContain('bound to tenants');
    expect(platformAccessProblem(principal({ username: 'bob', 'idp:groups': ['client:beta'], scope: 'platform/admin' }))).toContain(
      'group admin',
    );
    expect(platformAccessProblem(principal({ username: 'bob', scope: 'platform/admin' }))).toContain('group admin');
  });

  it('narrows lists of tenants', () => {
    expect(visibleTenants(principal({ client_id: 'ops' }))).toBeUndefined();
    expect(visibleTenants(principal({ client_id: 'acme' }))).toEqual(['acme']);
    expect(visibleTenants(principal({ client_id: 'batch', scope: 'platform/admin' }))).toEqual(['acme', 'globex']);
    expect(visibleTenants(principal({ username: 'al', 'idp:groups': ['client:acme', 'staff'] }))).toEqual(['acme']);
  });
});

describe('identity claims', () => {
  it.each([
    ['username', { username: 'eve\u0000', 'idp:groups': ['admin'] }, 'holds a control character'],
    ['sub', { sub: 'eve\n', client_id: 'ops' }, 'holds a control character'],
    ['client_id', { client_id: 'ops\u007f' }, 'holds a control character'],
    ['idp:groups', { username: 'eve', 'idp:groups': ['client:acme\u0000'] }, 'holds a control character'],
    ['username', { username: 'eve\ud800' }, 'lone surrogate'],
    ['sub', { sub: 'x'.repeat(513), client_id: 'ops' }, 'longer than 512'],
  ])('refuse a token whose %s cannot be stored, naming the claim', (claim, claims, problem) => {
    expect(() => principalFromClaims(claims, auth)).toThrow(`claim "${claim}"`);
    expect(() => principalFromClaims(claims, auth)).toThrow(problem);
  });

  it('take ordinary names, e-mail addresses and non-Latin scripts', () => {
    expect(principalFromClaims({ username: 'zoë.ōtsuka@example.com', sub: '名前-😀' }, auth)).toMatchObject({ kind: 'human' });
  });
});
