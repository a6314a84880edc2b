import type { Knex } from 'knex';
import { createOutbox, outboxEvents, type NewEvent } from '../../../../src/domain/webhooks';
import { MAX_EVENT_DATA_BYTES } from '../../../../src/domain/webhooks/outbox';
import type { AssignmentRow } from '../../../../src/domain/assignments';
import type { ServiceRow } from '../../../../src/domain/services';
import type { SubscriptionRow, VersionRow } from '../../../../src/domain/models';
import { MemoryOutboxStore, jobView, subscription } from '../../../helpers/memory-stores';

// The outbox's rules (which event a change announces, its tenant, ordering key, body and bound) on the in-memory store;
// test/temporal/domain/webhooks/webhooks.test.ts covers the Postgres store and its transactions.

const AT = new Date('2026-01-02T03:04:05.000Z');
const DOMAIN = { client_id: 'acme', domain_id: 'fraud' };

function version(fields: Partial<VersionRow> = {}): VersionRow {
  return {
    model_id: 'm',
    version: '1',
    description: '',
    metadata: {},
    status: 'active',
    features: [],
    artifacts: [],
    source: null,
    source_job_id: null,
    tags: {},
    created_at: AT,
    updated_at: AT,
    created_by: null,
    status_changed_by: null,
    status_changed_at: null,
    ...fields,
  };
}

function service(fields: Partial<ServiceRow> = {}): ServiceRow {
  return {
    service_uuid: 'svc-uuid',
    domain_uuid: 'dom-uuid',
    service_id: 'checkout',
    status: 'available',
    departure_datetime: AT,
    provided_features: {},
    resolved_features: {},
    created_at: AT,
    updated_at: AT,
    ...fields,
  };
}

function assignment(fields: Partial<AssignmentRow> = {}): AssignmentRow {
  return {
    assignment_id: 'a1',
    domain_uuid: 'dom-uuid',
    service_uuid: null,
    assignment_key: 'default',
    model_id: 'm',
    model_version: '1',
    status: 'active',
    role: null,
    follows_alias: null,
    settings: {},
    metadata: {},
    created_at: AT,
    updated_at: AT,
    activated_at: AT,
    archived_at: null,
    created_by: null,
    archived_by: null,
    status_reason: null,
    ...fields,
  };
}

function setup() {
  const store = new MemoryOutboxStore();
  store.domains.set('dom-uuid', DOMAIN);
  return { store, events: outboxEvents(store) };
}

describe('the webhook outbox', () => {
  it('announces a final job by its status, keyed by the job, with the job as the API shows it', async () => {
    const { store, events } = setup();
    await events.jobFinished(jobView({ job_id: 'j1', status: 'failure', client_id: 'acme', domain_id: 'fraud' }));
    expect(store.events).toEqual([
      expect.objectContaining({
        type: 'job.failed',
        client_id: 'acme',
        domain_id: 'fraud',
        model_id: 'm',
        ordering_key: 'job:j1',
        target_webhook_id: null,
        data: expect.objectContaining({ job_id: 'j1', status: 'failure', temporal_url: null }),
      }),
    ]);
  });

  it('announces nothing for a job that is not final, or one the store does not have', async () => {
    const { store, events } = setup();
    store.jobs.set('j2', jobView({ job_id: 'j2', status: 'running' }));
    await events.jobFinished('j2');
    await events.jobFinished('gone');
    await events.jobFinished(jobView({ job_id: 'j3', status: 'pending' }));
    expect(store.events).toEqual([]);
  });

  it('reads a job given by id from the store', async () => {
    const { store, events } = setup();
    store.jobs.set('j4', jobView({ job_id: 'j4', status: 'cancelled' }));
    await events.jobFinished('j4');
    expect(store.events.map((e) => e.type)).toEqual(['job.cancelled']);
  });

  it('writes several events in one append, in order, with ids that sort in that order', async () => {
    const { store, events } = setup();
    const batch: NewEvent[] = ['a', 'b', 'c'].map((k) => ({ type: 'alias.moved', client_id: null, ordering_key: k, data: { k } }));
    let appends = 0;
    const append = store.append.bind(store);
    store.append = async (rows) => {
      appends++;
      return append(rows);
    };
    const ids = await events.recordAll(batch);
    expect(appends).toBe(1);
    expect(store.events.map((e) => e.ordering_key)).toEqual(['a', 'b', 'c']);
    expect(store.events.map((e) => e.event_id)).toEqual(ids);
    expect([...ids].sort()).toEqual(ids);
    expect(await events.recordAll([])).toEqual([]);
    expect(appends).toBe(1);
  });

  it('cuts data over the bound to its scalar fields, marked truncated', async () => {
    const { store, events } = setup();
    const big = 'x'.repeat(MAX_EVENT_DATA_BYTES);
    await events.record({ type: 'alias.moved', client_id: null, ordering_key: 'k', data: { id: 'v', n: 1, nested: { big } } });
    await events.record({ type: 'alias.moved', client_id: null, ordering_key: 'k', data: { id: 'w', nested: { small: 1 } } });
    expect(store.events.map((e) => e.data)).toEqual([
      { id: 'v', n: 1, truncated: true },
      { id: 'w', nested: { small: 1 } },
    ]);
  });

  it("announces a service's move to available or failed with its domain's tenant, and no other status", async () => {
    const { store, events } = setup();
    store.services.set('svc-uuid', service({ status: 'failed' }));
    store.services.set('busy', service({ service_uuid: 'busy', status: 'in_progress' }));
    await events.serviceStatusChanged('svc-uuid', 'm');
    await events.serviceStatusChanged('busy');
    await events.serviceStatusChanged('gone');
    expect(store.events).toEqual([
      expect.objectContaining({
        type: 'service.failed',
        client_id: 'acme',
        domain_id: 'fraud',
        model_id: 'm',
        ordering_key: 'service:svc-uuid',
        data: expect.objectContaining({ client_id: 'acme', domain_id: 'fraud', service_id: 'checkout', status: 'failed' }),
      }),
    ]);
  });

  it('keys the events of one assignment key together, a change and its rollback alike', async () => {
    const { store, events } = setup();
    const scope = { domainUuid: 'dom-uuid', domainId: 'fraud' };
    await events.assignmentChanged(assignment(), scope);
    await events.assignmentRolledBack(
      assignment({ service_uuid: 'svc-uuid', status: 'archived' }),
      { ...scope, serviceId: 'checkout' },
      {
        reason: 'by hand',
        automatic: false,
      },
    );
    expect(store.events.map((e) => [e.type, e.client_id, e.ordering_key])).toEqual([
      ['assignment.changed', 'acme', 'assignment:dom-uuid:-:default'],
      ['assignment.rolled_back', 'acme', 'assignment:dom-uuid:svc-uuid:default'],
    ]);
    expect(store.events[1].data).toEqual(
      expect.objectContaining({
        client_id: 'acme',
        reason: 'by hand',
        automatic: false,
        assignment: expect.objectContaining({ service_id: 'checkout' }),
      }),
    );
  });

  it("announces registry changes to no tenant: a version's status, a deletion, stale subscriptions", async () => {
    const { store, events } = setup();
    store.versions.set('m@1', version({ status: 'deprecated' }));
    const stale: SubscriptionRow = { ...subscription({ subscription_id: 's1' }), status: 'stale' };
    store.subscriptions.set('s1', stale);
    await events.versionStatusChanged('m', '1');
    await events.versionStatusChanged('m', 'missing');
    await events.versionDeleted(version({ version: '2' }));
    await events.subscriptionsStale(['s1', 'gone']);
    expect(store.events.map((e) => [e.type, e.client_id, e.ordering_key])).toEqual([
      ['version.status_changed', null, 'version:m@1'],
      ['version.deleted', null, 'version:m@2'],
      ['subscription.stale', null, 'subscription:s1'],
    ]);
    expect(store.events[0].data).toEqual(expect.objectContaining({ status: 'deprecated', created_at: AT.toISOString() }));
  });

  it('writes each change on the store of the transaction it is given', async () => {
    const [first, second] = [new MemoryOutboxStore(), new MemoryOutboxStore()];
    const trxA = {} as Knex;
    const trxB = {} as Knex;
    const outbox = createOutbox((db) => (db === trxA ? first : second));
    await outbox(trxA).aliasMoved({ model_id: 'm', alias: 'prod', version: '2' }, '1');
    await outbox(trxB).modelDeleted({ ...version(), id: 'm', name: 'm', handlers: {}, handler_contracts: null, status: 'active' } as never);
    expect(first.events.map((e) => [e.type, e.ordering_key, e.data])).toEqual([
      ['alias.moved', 'alias:m#prod', { model_id: 'm', alias: 'prod', version: '2', previous_version: '1' }],
    ]);
    expect(second.events.map((e) => e.type)).toEqual(['model.deleted']);
  });
});
