import { Harness, uid } from '../../../helpers/harness';
import { activeModel, addVersion, ECHO_HANDLERS, FEATURES, tenantWithDomain } from '../../../helpers/fixtures';

const MANUAL = { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'manual' } };

describe('registry: version lifecycle and deletion', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ worker: true });
  });
  afterAll(() => h.stop());

  const setStatus = (modelId: string, version: string, status: string) =>
    h.api('PUT', `/v2/models/${modelId}/versions/${version}/new_status`, { body: { status } });
  const events = async (type: string, modelId: string) =>
    (await h.knex('webhook_events').where({ type, model_id: modelId }).orderBy('seq')).map((e: any) => e.data);

  it('deprecated: runs where assigned, cannot be newly assigned or run directly (422 naming it), and says so in a webhook event', async () => {
    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    expect((await setStatus(modelId, '1', 'deprecated')).body.status).toBe('deprecated');

    const run = await h.api('POST', `${base}/assignments/default/run`, { body: { input: { seats: 2 } } });
    expect(run.status).toBe(202);
    expect((await h.api('GET', `/v2/jobs/${run.body.job_id}?wait=30`)).body.status).toBe('success');

    const assign = await h.api('PUT', `${base}/assignments/other`, { body: { model_id: modelId, model_version: '1' } });
    expect(assign.status).toBe(422);
    expect(assign.body.message).toContain(`${modelId}@1 is deprecated`);
    const direct = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    expect(direct.status).toBe(422);
    expect(direct.body.message).toContain('deprecated');

    expect((await events('version.status_changed', modelId)).map((v) => v.status)).toEqual(['active', 'deprecated']);
    // Back to active: assignable again.
    expect((await setStatus(modelId, '1', 'active')).status).toBe(200);
    expect((await h.api('PUT', `${base}/assignments/other`, { body: { model_id: modelId, model_version: '1' } })).status).toBe(201);
  });

  it('archived: refused with 409 listing the assignments that bind it, allowed once they moved; then no new jobs', async () => {
    const modelId = await activeModel(h);
    const { base, clientId, domainId } = await tenantWithDomain(h, { modelId });
    const bound = (await h.api('GET', `${base}/assignments/default`)).body.assignment_id;
    const refused = await setStatus(modelId, '1', 'archived');
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(bound);
    expect(refused.body.message).toContain(`${clientId}/${domainId}`);
    expect((await h.api('GET', `/v2/models/${modelId}/versions/1`)).body.status).toBe('active');

    await addVersion(h, modelId, '2', FEATURES);
    expect((await h.api('PUT', `${base}/assignments/default`, { body: { model_id: modelId, model_version: '2' } })).status).toBe(201);
    expect((await setStatus(modelId, '1', 'archived')).body.status).toBe('archived');

    const direct = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    expect(direct.status).toBe(422);
    expect(direct.body.message).toContain('archived');
    expect((await h.api('POST', `/v2/models/${modelId}/versions/1/train`, { body: {} })).status).toBe(409);
    const assign = await h.api('PUT', `${base}/assignments/default`, { body: { model_id: modelId, model_version: '1' } });
    expect(assign.status).toBe(422);
    expect(assign.body.message).toContain(`${modelId}@1 is archived`);
  });

  it('refuses to delete a version while assignments, schedules or unfinished jobs reference it (409 listing them)', async () => {
    const modelId = await activeModel(h, { handlers: MANUAL });
    const { base } = await tenantWithDomain(h, { modelId });
    const bound = (await h.api('GET', `${base}/assignments/default`)).body.assignment_id;
    const schedule = await h.api('POST', '/v2/inference-schedules', {
      body: { model_id: modelId, model_version: '1', spec: { intervals: [{ every_seconds: 3600 }] } },
    });
    expect(schedule.status).toBe(201);
    const job = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    expect(job.status).toBe(202);

    const refused = await h.api('DELETE', `/v2/models/${modelId}/versions/1`);
    expect(refused.status).toBe(409);
    for (const named of [bound, schedule.body.schedule_id, job.body.job_id]) expect(refused.body.message).toContain(named);
    expect((await h.api('GET', `/v2/models/${modelId}/versions/1`)).status).toBe(200);
    const refusedModel = await h.api('DELETE', `/v2/models/${modelId}`);
    expect(refusedModel.status).toBe(409);
    expect(refusedModel.body.message).toContain(bound);
  });

  it('deletes a version nothing references: its jobs keep naming it, its string is not reused, a webhook event says so', async () => {
    const modelId = await activeModel(h);
    await addVersion(h, modelId, '2', FEATURES);
    const job = await h.api('POST', `/v2/models/${modelId}/versions/2/infer`, { body: { input: { x: 1 } } });
    expect((await h.api('GET', `/v2/jobs/${job.body.job_id}?wait=30`)).body.status).toBe('success');

    const deleted = await h.api('DELETE', `/v2/models/${modelId}/versions/2`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ model_id: modelId, version: '2', status: 'active' });
    expect((await h.api('GET', `/v2/models/${modelId}/versions/2`)).status).toBe(404);
    expect((await h.api('GET', `/v2/jobs/${job.body.job_id}`)).body).toMatchObject({ model_version: '2', status: 'success' });
    expect((await events('version.deleted', modelId)).map((v) => v.version)).toEqual(['2']);

    const again = await h.api('POST', `/v2/models/${modelId}/versions`, { body: { version: '2', features: FEATURES } });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('was deleted');
    expect((await h.api('DELETE', `/v2/models/${modelId}/versions/2`)).status).toBe(404);
  });

  it('deletes a model once its subscriptions are disabled, and keeps its id from being registered again', async () => {
    const modelId = await activeModel(h);
    const target = await activeModel(h);
    const sub = await h.api('POST', `/v2/models/${modelId}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: target, target_action: 'inference', input_source: 'trigger_output' },
    });
    expect(sub.status).toBe(201);
    const refused = await h.api('DELETE', `/v2/models/${modelId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(sub.body.subscription_id);
    // The target model is referenced by the same subscription.
    expect((await h.api('DELETE', `/v2/models/${target}`)).status).toBe(409);

    expect((await h.api('DELETE', `/v2/models/${modelId}/event-subscriptions/${sub.body.subscription_id}`)).status).toBe(200);
    const deleted = await h.api('DELETE', `/v2/models/${modelId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.id).toBe(modelId);
    expect((await h.api('GET', `/v2/models/${modelId}`)).status).toBe(404);
    expect((await events('model.deleted', modelId)).map((m) => m.id)).toEqual([modelId]);
    const again = await h.api('POST', '/v2/models', {
      body: { id: modelId, name: 'again', description: '', metadata: {}, handlers: ECHO_HANDLERS },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('was deleted');
    expect((await h.api('DELETE', `/v2/models/${uid('nope')}`)).status).toBe(404);
  });
});
