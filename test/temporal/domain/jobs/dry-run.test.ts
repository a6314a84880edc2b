import { Harness } from '../../../helpers/harness';
import { activeModel, addVersion, tenantWithDomain, initService, eventually, FEATURES } from '../../../helpers/fixtures';
import { workflowIdFor } from '../../../../src/domain/ports/job-gateway.port';

/** v2 makes `cabin` an integer: a service initialized with cabin "business" no longer fits and blocks v2 as default. */
const V2_FEATURES = [
  { name: 'seats', json_schema: { type: 'integer', minimum: 1 }, mandatory: true },
  { name: 'cabin', json_schema: { type: 'integer', enum: [1, 2] }, mandatory: true },
];

describe('dry run (?dry_run=true)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  /** Every row this tenant and these models own, in every table that can hold one. */
  async function snapshot(clientId: string, modelIds: string[]) {
    const rows = async (sql: string, bindings: unknown[]) => (await h.knex.raw(sql, bindings as never)).rows;
    const inDomains = 'JOIN domains d USING (domain_uuid) WHERE d.client_id = ?';
    return {
      clients: await rows('SELECT * FROM clients WHERE client_id = ?', [clientId]),
      domains: await rows('SELECT * FROM domains WHERE client_id = ? ORDER BY domain_uuid', [clientId]),
      feature_definitions: await rows(`SELECT f.* FROM feature_definitions f ${inDomains} ORDER BY f.domain_uuid, f.position`, [clientId]),
      services: await rows(`SELECT s.* FROM services s ${inDomains} ORDER BY s.service_uuid`, [clientId]),
      assignments: await rows(`SELECT a.* FROM assignments a ${inDomains} ORDER BY a.assignment_id`, [clientId]),
      model_jobs: await rows('SELECT * FROM model_jobs WHERE client_id = ? OR model_id = ANY(?) ORDER BY job_id', [clientId, modelIds]),
      models: await rows('SELECT * FROM models WHERE id = ANY(?) ORDER BY id', [modelIds]),
      model_versions: await rows('SELECT * FROM model_versions WHERE model_id = ANY(?) ORDER BY model_id, version', [modelIds]),
      event_subscriptions: await rows(
        'SELECT * FROM event_subscriptions WHERE source_model_id = ANY(?) OR target_model_id = ANY(?) ORDER BY subscription_id',
        [modelIds, modelIds],
      ),
      // Without dispatched_at: a webhook dispatcher of a test running beside this one marks events it has seen.
      webhook_events: (
        await rows('SELECT * FROM webhook_events WHERE client_id = ? OR model_id = ANY(?) ORDER BY seq', [clientId, modelIds])
      ).map(({ dispatched_at: _dispatched, ...event }: { dispatched_at: unknown }) => event),
    };
  }

  async function workflowsOf(clientId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const wf of h.temporal.workflow.list({ query: `ClientId = "${clientId}"` })) ids.push(wf.workflowId);
    return ids.sort();
  }

  /** The tenant's workflows once the one of `jobId` (started after what the test looks at) is visible. */
  async function workflowsAfter(clientId: string, jobId: string): Promise<string[]> {
    return eventually(
      async () => {
        const ids = await workflowsOf(clientId);
        return ids.includes(workflowIdFor(jobId)) && ids;
      },
      15000,
      `the workflow of job ${jobId} in visibility`,
    );
  }

  /** A domain on v1 with one service (cabin "business") that blocks v2, and its init workflow visible in Temporal. */
  async function blockedSetup() {
    const modelId = await activeModel(h);
    const t = await tenantWithDomain(h, { modelId }); // model/assign takes the newest active version: v1 here
    await addVersion(h, modelId, '2', V2_FEATURES);
    expect((await initService(h, t.base, 'svc-1', { seats: 10, cabin: 'business' })).status).toBe(202);
    const workflows = await eventually(async () => {
      const ids = await workflowsOf(t.clientId);
      return ids.length === 1 && ids;
    });
    return { modelId, workflows, ...t };
  }

  it('answers a blocked default assignment with the same 422 and blocking_services as the real call, and changes nothing', async () => {
    const { modelId, clientId, base, workflows } = await blockedSetup();
    const before = await snapshot(clientId, [modelId]);
    const body = { model_id: modelId, model_version: '2' };
    const dry = await h.api('PUT', `${base}/assignments/default?dry_run=true`, { body });
    expect(dry.status).toBe(422);
    expect(dry.body.blocking_services).toEqual([{ service_id: 'svc-1', feature: 'cabin', value: 'business' }]);
    expect(await snapshot(clientId, [modelId])).toEqual(before);

    const real = await h.api('PUT', `${base}/assignments/default`, { body });
    expect(real.status).toBe(422);
    expect(real.body).toEqual(dry.body);
    // A later job of the same tenant: its start queues behind any the calls above made, and once visibility shows it,
    // the workflows beside it are the setup's and its own.
    const marker = await initService(h, base, 'svc-marker', { seats: 2, cabin: 'economy' });
    expect(marker.status).toBe(202);
    expect(await workflowsAfter(clientId, marker.body.job_id)).toEqual([...workflows, workflowIdFor(marker.body.job_id)].sort());
  });

  it('previews an unblocking service_updates with before/after resolved features, then the real call does just that', async () => {
    const { modelId, clientId, base, workflows } = await blockedSetup();
    const before = await snapshot(clientId, [modelId]);
    const body = { model_id: modelId, model_version: '2', service_updates: [{ service_id: 'svc-1', static_features: { cabin: 2 } }] };
    const dry = await h.api('PUT', `${base}/assignments/default?dry_run=true`, { body });
    expect(dry.status).toBe(201);
    expect(dry.body.preview).toEqual({
      dry_run: true,
      blocking_services: [],
      resolved_features_changes: [
        { service_id: 'svc-1', before: { seats: 10, cabin: 'business', tags: [] }, after: { seats: 10, cabin: 2 } },
      ],
      inference: { would_run: false, service_ids: [] },
      stale_subscriptions: [],
    });
    expect(dry.body).toMatchObject({ assignment_key: 'default', model_id: modelId, model_version: '2', status: 'active' });
    expect(await snapshot(clientId, [modelId])).toEqual(before);
    expect((await h.api('GET', `${base}/assignments/default`)).body.model_version).toBe('1');

    const real = await h.api('PUT', `${base}/assignments/default`, { body });
    expect(real.status).toBe(201);
    expect(real.body.preview).toBeUndefined();
    expect((await h.api('GET', `${base}/service/svc-1`)).body.resolved_features).toEqual(
      dry.body.preview.resolved_features_changes[0].after,
    );
    expect(await workflowsOf(clientId)).toEqual(workflows);
  });

  it('previews a service update that re-runs inference without staging the job or starting its workflow', async () => {
    const modelId = await activeModel(h);
    const { clientId, base } = await tenantWithDomain(h, { modelId });
    expect((await initService(h, base, 'svc-u', { seats: 10 })).status).toBe(202);
    const workflows = await eventually(async () => {
      const ids = await workflowsOf(clientId);
      return ids.length === 1 && ids;
    });
    const before = await snapshot(clientId, [modelId]);
    const dry = await h.api('PUT', `${base}/service/svc-u?dry_run=true`, { body: { static_features: { seats: 12 } } });
    expect(dry.status).toBe(200);
    expect(dry.body.job_id).toBeUndefined();
    expect(dry.body.preview.inference).toEqual({ would_run: true, service_ids: ['svc-u'] });
    expect(dry.body.preview.resolved_features_changes).toEqual([
      { service_id: 'svc-u', before: { seats: 10, cabin: 'economy', tags: [] }, after: { seats: 12, cabin: 'economy', tags: [] } },
    ]);
    expect(dry.body.resolved_features).toEqual({ seats: 12, cabin: 'economy', tags: [] });
    // No job row: a workflow starts only from a committed one.
    expect(await snapshot(clientId, [modelId])).toEqual(before);

    // The same request for real starts the job the preview announced (the check above can fail), and only that one:
    // once its workflow is visible, a start from the preview, queued before it, would be too.
    const real = await h.api('PUT', `${base}/service/svc-u`, { body: { static_features: { seats: 12 } } });
    expect(real.body.job_id).toEqual(expect.any(String));
    expect(await workflowsAfter(clientId, real.body.job_id)).toEqual([...workflows, workflowIdFor(real.body.job_id)].sort());
  });

  it('answers the same validation error as the real call', async () => {
    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    expect((await initService(h, base, 'svc-v', { seats: 10 })).status).toBe(202);
    const dry = await h.api('PUT', `${base}/service/svc-v?dry_run=true`, { body: { static_features: { seats: 0 } } });
    const real = await h.api('PUT', `${base}/service/svc-v`, { body: { static_features: { seats: 0 } } });
    expect(dry.status).toBe(422);
    expect(dry.body).toEqual(real.body);
  });

  it('previews model/assign, PUT features, a model update and a version status change without writing', async () => {
    const modelId = await activeModel(h);
    const target = await activeModel(h, { handler_contracts: { inference: { input_schema: { type: 'object' } } } });
    const { clientId, base } = await tenantWithDomain(h);
    const sub = await h.api('POST', `/v2/models/${modelId}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: target, target_action: 'inference', input_source: 'stored', input: {} },
    });
    expect(sub.status).toBe(201);
    const before = await snapshot(clientId, [modelId, target]);

    const assign = await h.api('POST', `${base}/model/assign?dry_run=true`, { body: { model_id: modelId } });
    expect(assign.status).toBe(200);
    expect(assign.body.assignment).toMatchObject({ assignment_key: 'default', model_id: modelId, model_version: '1' });
    expect(assign.body.preview.dry_run).toBe(true);

    const features = await h.api('PUT', `${base}/features?dry_run=true`, { body: { features: FEATURES.slice(0, 1) } });
    expect(features.status).toBe(200);
    expect(features.body.features.map((f: any) => f.name)).toEqual(['seats']);

    const update = await h.api('PUT', `/v2/models/${modelId}?dry_run=true`, {
      body: { handlers: { ...ECHO, inference: { type: 'in_process', name: 'sum' } } },
    });
    expect(update.status).toBe(200);
    expect(update.body.preview.stale_subscriptions).toEqual([sub.body.subscription_id]);
    expect(update.body.model.handlers.inference.name).toBe('sum');

    const status = await h.api('PUT', `/v2/models/${modelId}/versions/1/new_status?dry_run=true`, { body: { status: 'failed' } });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ status: 'failed', preview: { dry_run: true, assignments: [] } });

    const version = await h.api('POST', `/v2/models/${modelId}/versions?dry_run=true`, { body: { version: '9', features: FEATURES } });
    expect(version.status).toBe(201);
    expect(version.body.compatibility).toMatchObject({ subject: 'version', model_version: '9', compatible: true });

    expect(await snapshot(clientId, [modelId, target])).toEqual(before);
    expect((await h.api('GET', `/v2/models/${modelId}/versions/9`)).status).toBe(404);
  });

  it('is authorized like the real call: a token without the permission gets 403 and nothing is previewed', async () => {
    const modelId = await activeModel(h);
    const { clientId, base } = await tenantWithDomain(h, { modelId });
    const reader = await h.idp.human('rita', [`client:${clientId}`], ['client_read']);
    const res = await h.api('PUT', `${base}/assignments/default?dry_run=true`, {
      token: reader,
      body: { model_id: modelId, model_version: '1' },
    });
    expect(res.status).toBe(403);
    expect(res.body.preview).toBeUndefined();
  });

  it('refuses a dry_run that is neither true nor false', async () => {
    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    const res = await h.api('PUT', `${base}/assignments/default?dry_run=yes`, { body: { model_id: modelId, model_version: '1' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('dry_run');
  });
});

const ECHO = { training: { type: 'in_process', name: 'echo' } };
