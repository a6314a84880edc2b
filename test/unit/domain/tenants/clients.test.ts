import { createClientsService } from '../../../../src/domain/tenants';
import type { LimitDefaults } from '../../../../src/domain/common';
import { MemoryClientStore } from '../../../../src/db/memory';
import { NotFoundError } from '../../../../src/errors';

// The tenants' rules on the in-memory store; test/db/domain/tenants/tenants.test.ts covers them over Postgres through the API.

const DEFAULTS: LimitDefaults = {
  jobsPerSecond: 50,
  jobsBurst: 200,
  maxRunningJobs: 0,
  requestsPerSecond: 200,
  requestsBurst: 400,
  jobCapacity: 40,
};

/** A store whose clock moves one second per write, so the newest-first order is the order of creation. */
function setup() {
  let tick = Date.UTC(2026, 0, 1);
  const store = new MemoryClientStore(() => new Date((tick += 1000)));
  return { store, clients: createClientsService(store, DEFAULTS) };
}

describe('the tenants (machine clients)', () => {
  it('creates a tenant on the defaults, then updates it in place', async () => {
    const { clients } = setup();
    const first = await clients.upsert('acme', 'Acme');
    expect(first).toEqual({
      created: true,
      client: expect.objectContaining({
        client_id: 'acme',
        name: 'Acme',
        status: 'active',
        limits_override: null,
        limits: { jobs_per_second: 50, burst: 200, max_running_jobs: null, fairness_weight: 1 },
      }),
    });
    const second = await clients.upsert('acme', undefined, { max_running_jobs: 3 });
    expect(second.created).toBe(false);
    expect(second.client).toEqual(
      expect.objectContaining({ name: 'Acme', client_uuid: first.client.client_uuid, limits_override: { max_running_jobs: 3 } }),
    );
    expect(second.client.limits.max_running_jobs).toBe(3);
  });

  it('keeps the override when limits are left out, and takes an empty or null one as none', async () => {
    const { clients } = setup();
    await clients.upsert('acme', 'Acme', { burst: 10 });
    expect((await clients.upsert('acme', 'Acme Corp')).client.limits_override).toEqual({ burst: 10 });
    expect((await clients.upsert('acme', undefined, {})).client.limits_override).toBeNull();
    await clients.upsert('acme', undefined, { burst: 10 });
    expect((await clients.upsert('acme', undefined, null)).client).toEqual(
      expect.objectContaining({ name: 'Acme Corp', limits_override: null }),
    );
  });

  it('suspends and reactivates a tenant; an unknown one is a 404', async () => {
    const { clients } = setup();
    await clients.upsert('acme', 'Acme');
    expect((await clients.setStatus('acme', 'suspended')).status).toBe('suspended');
    expect((await clients.get('acme')).status).toBe('suspended');
    await expect(clients.setStatus('nobody', 'active')).rejects.toThrow(new NotFoundError('client nobody not found'));
    await expect(clients.get('nobody')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('lists newest first, a page at a time, narrowed by status and by the tenants a caller may see', async () => {
    const { clients } = setup();
    for (const id of ['a', 'b', 'c', 'd']) await clients.upsert(id, id.toUpperCase());
    await clients.setStatus('c', 'suspended');
    const first = await clients.list({ limit: 3 }, {});
    expect(first.items.map((c) => c.client_id)).toEqual(['d', 'c', 'b']);
    const rest = await clients.list({ limit: 3, cursor: first.next_cursor! }, {});
    expect(rest).toEqual({ items: [expect.objectContaining({ client_id: 'a' })], next_cursor: null });
    expect((await clients.list({ limit: 10 }, { status: 'suspended' })).items.map((c) => c.client_id)).toEqual(['c']);
    expect((await clients.list({ limit: 10 }, { only: ['a', 'd', 'zz'] })).items.map((c) => c.client_id)).toEqual(['d', 'a']);
  });

  it('refuses a cursor it did not give out', async () => {
    const { clients } = setup();
    await expect(clients.list({ limit: 3, cursor: 'not-a-cursor' }, {})).rejects.toThrow(/cursor is not valid/);
  });
});
