import pino from 'pino';
import { Harness } from '../../../helpers/harness';
import { activeModel, addVersion, eventually, FEATURES, initService, tenantWithDomain } from '../../../helpers/fixtures';
import { ownDatabase } from '../../../helpers/own-temporal';
import { startReceiver } from '../../../helpers/webhook-receiver';
import { webhookDispatcherFor } from '../../../../src/temporal/webhook-dispatcher';
import { builtinImplementations, type InProcessJob } from '../../../../activities/in-process/registry';

const seatsOf = (job: InProcessJob) => Number((job.input.features as { seats?: number } | undefined)?.seats ?? 0);

/**
 * `versioned`: version 1 scores a service by its seats; version 2 agrees for up to 2 seats and scores one more
 * above; version 3 fails every job (a bad candidate).
 */
const IN_PROCESS = {
  ...builtinImplementations,
  versioned: async (job: InProcessJob) => {
    if (job.modelVersion === '3') throw new Error('version 3 is broken');
    const seats = seatsOf(job);
    return { score: job.modelVersion === '2' && seats > 2 ? seats + 1 : seats };
  },
};
const VERSIONED = { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'versioned' } };

/** v2's freeze takes at most 400 seats: a service with more cannot run it. */
const V2_FEATURES = FEATURES.map((f) => (f.name === 'seats' ? { ...f, json_schema: { type: 'integer', minimum: 1, maximum: 400 } } : f));

describe('progressive delivery: canary, shadow, report, promote, rollback, guardrail', () => {
  let h: Harness;
  let db: Awaited<ReturnType<typeof ownDatabase>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dispatcher: ReturnType<typeof webhookDispatcherFor>;

  beforeAll(async () => {
    // A database of its own: the webhook dispatcher fans out every undispatched event of its database.
    db = await ownDatabase();
    h = await Harness.start({
      databaseUrl: db.url,
      worker: true,
      inProcess: IN_PROCESS,
      env: {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1/32',
        WEBHOOK_RETRY_INITIAL_MS: '200',
        WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      },
    });
    dispatcher = webhookDispatcherFor({ knex: h.knex, client: h.temporal, config: h.config, log: pino({ level: 'silent' }) });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await receiver?.close();
    await h?.stop();
    await db?.drop();
  });

  /** A domain on v1 of a `versioned` model with a v2 (and v3, failing) beside it, and `n` services of 1, 2, 3, ... seats. */
  async function rollout(n: number) {
    const modelId = await activeModel(h, { handlers: VERSIONED });
    const t = await tenantWithDomain(h, { modelId });
    await addVersion(h, modelId, '2', V2_FEATURES);
    await addVersion(h, modelId, '3', FEATURES);
    const ids = Array.from({ length: n }, (_, i) => `svc-${String(i + 1).padStart(2, '0')}`);
    for (const [i, id] of ids.entries()) expect((await initService(h, t.base, id, { seats: i + 1 })).status).toBe(202);
    return { modelId, ids, ...t };
  }

  const put = (base: string, key: string, body: Record<string, unknown>) => h.api('PUT', `${base}/assignments/${key}`, { body });
  const finalJob = (jobId: string) => h.api('GET', `/v2/jobs/${jobId}?wait=30`).then((r) => r.body);

  /** Re-initializes every service; answers the version each one's new job runs. */
  async function versionsAfterInit(base: string, ids: string[]) {
    const versions: Record<string, string> = {};
    for (const [i, id] of ids.entries()) {
      const init = await initService(h, base, id, { seats: i + 1 });
      expect(init.status).toBe(202);
      versions[id] = (await h.api('GET', `/v2/jobs/${init.body.job_id}`)).body.model_version;
    }
    return versions;
  }

  it('runs the candidate for exactly the services a 30 % canary lists, and a 60 % canary keeps them', async () => {
    const { modelId, ids, base } = await rollout(20);
    expect((await put(base, 'canary', { model_id: modelId, model_version: '2', role: 'canary', settings: { share: 30 } })).status).toBe(
      201,
    );
    const at30 = (await h.api('GET', `${base}/assignments/canary/canary`)).body;
    expect(at30).toMatchObject({ share: 30, services_total: 20, selected: 6, blocked: [], primary_key: 'default', model_version: '2' });
    expect(at30.services).toHaveLength(6);
    const versions30 = await versionsAfterInit(base, ids);
    expect(ids.filter((id) => versions30[id] === '2').sort()).toEqual([...at30.services].sort());
    expect(ids.filter((id) => versions30[id] === '1')).toHaveLength(14);
    // Running the primary's key for a service follows the canary too.
    const outside = ids.find((id) => !at30.services.includes(id))!;
    for (const [id, version] of [
      [at30.services[0], '2'],
      [outside, '1'],
    ]) {
      const run = await h.api('POST', `${base}/service/${id}/assignments/default/run`, { body: { input: {} } });
      expect(run.status).toBe(202);
      expect((await h.api('GET', `/v2/jobs/${run.body.job_id}`)).body.model_version).toBe(version);
    }

    expect((await put(base, 'canary', { model_id: modelId, model_version: '2', role: 'canary', settings: { share: 60 } })).status).toBe(
      201,
    );
    const at60 = (await h.api('GET', `${base}/assignments/canary/canary`)).body;
    expect(at60.services).toHaveLength(12);
    expect(at60.services.slice(0, 6)).toEqual(at30.services);
    const versions60 = await versionsAfterInit(base, ids);
    expect(ids.filter((id) => versions60[id] === '2').sort()).toEqual([...at60.services].sort());
  });

  it("keeps a service of the share on the primary when its features do not fit the candidate's freeze, and lists why", async () => {
    const modelId = await activeModel(h, { handlers: VERSIONED });
    const { base } = await tenantWithDomain(h, { modelId });
    await addVersion(h, modelId, '2', V2_FEATURES);
    expect((await initService(h, base, 'big', { seats: 450 })).status).toBe(202);
    expect((await initService(h, base, 'small', { seats: 4 })).status).toBe(202);
    expect((await put(base, 'canary', { model_id: modelId, model_version: '2', role: 'canary', settings: { share: 100 } })).status).toBe(
      201,
    );
    const listed = (await h.api('GET', `${base}/assignments/canary/canary`)).body;
    expect(listed.services).toEqual(['small']);
    expect(listed.blocked).toEqual([{ service_id: 'big', feature: 'seats', value: 450, reason: expect.any(String) }]);
    const big = await initService(h, base, 'big', { seats: 450 });
    expect((await h.api('GET', `/v2/jobs/${big.body.job_id}`)).body.model_version).toBe('1');
  });

  it('refuses bad canary and shadow assignments with a 400 naming the field, and a second canary of a key with a 409', async () => {
    const { modelId, base } = await rollout(1);
    const canary = (settings: unknown, extra: Record<string, unknown> = {}) => ({
      model_id: modelId,
      model_version: '2',
      role: 'canary',
      settings,
      ...extra,
    });
    const bad = async (path: string, body: unknown, field: string) => {
      const res = await h.api('PUT', path, { body });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
    };
    await bad(`${base}/assignments/c1`, canary({ share: 101 }), 'settings.share');
    await bad(`${base}/assignments/c1`, canary({ share: -1 }), 'settings.share');
    await bad(`${base}/assignments/c1`, canary({}), 'settings.share');
    await bad(`${base}/assignments/c1`, canary({ share: 10 }, { model_version: '1' }), 'model_version');
    await bad(`${base}/service/svc-01/assignments/c1`, canary({ share: 10 }), 'role');
    await bad(
      `${base}/assignments/s1`,
      { model_id: modelId, model_version: '2', role: 'shadow', settings: { tolerances: { score: 'close' } } },
      'settings.tolerances.score',
    );
    await bad(
      `${base}/assignments/c1`,
      canary({ share: 10, guardrail: { max_failure_rate: 2, min_jobs: 3 } }),
      'settings.guardrail.max_failure_rate',
    );

    expect((await put(base, 'c1', canary({ share: 10 }))).status).toBe(201);
    const second = await put(base, 'c2', canary({ share: 20 }, { model_version: '3' }));
    expect(second.status).toBe(409);
    expect(second.body.message).toContain('c1');
    // The canary's own key takes a new share as a new revision.
    expect((await put(base, 'c1', canary({ share: 20 }))).status).toBe(201);
  });

  it('runs one linked shadow job per primary job that changes no service, fires no subscription or webhook, and reports agreement', async () => {
    const { modelId, clientId, base, ids } = await rollout(3);
    await eventually(async () => (await h.api('GET', `/v2/clients/${clientId}/jobs?status=success`)).body.items.length === 3);
    // A subscription on the model and a webhook for every event of the tenant: a shadow must reach neither.
    const target = await activeModel(h);
    expect(
      (
        await h.api('POST', `/v2/models/${modelId}/event-subscriptions`, {
          body: {
            trigger_event: 'inference_complete',
            target_action: 'inference',
            label: 'l',
            target_model_id: target,
            input_source: 'trigger_output',
          },
        })
      ).status,
    ).toBe(201);
    const shadow = { model_id: modelId, model_version: '2', role: 'shadow', settings: { tolerance: 0.5 } };
    expect((await put(base, 'shadow-v2', shadow)).status).toBe(201);

    const jobs: string[] = [];
    for (const [i, id] of ids.entries()) jobs.push((await initService(h, base, id, { seats: i + 1 })).body.job_id);
    // A primary job's outcome creates its shadow: the services as the primary jobs left them, before any shadow ran.
    for (const jobId of jobs) expect((await finalJob(jobId)).status).toBe('success');
    const services = () =>
      h
        .knex('services')
        .whereIn('service_id', ids)
        .orderBy('service_id')
        .join('domains', 'domains.domain_uuid', 'services.domain_uuid')
        .where('domains.client_id', clientId)
        .select('services.*');
    const before = await services();
    const shadows = await eventually(async () => {
      const page = (await h.api('GET', `/v2/clients/${clientId}/jobs?trigger=shadow`)).body.items;
      return page.length === 3 && page.every((j: { status: string }) => j.status === 'success') && page;
    });
    expect(shadows.map((s: { model_version: string }) => s.model_version)).toEqual(['2', '2', '2']);
    for (const jobId of jobs) {
      const lineage = (await h.api('GET', `/v2/jobs/${jobId}/lineage`)).body.jobs;
      const linked = lineage.filter((j: { trigger: string }) => j.trigger === 'shadow');
      expect(linked).toHaveLength(1);
      expect(linked[0]).toMatchObject({ parent_job_id: jobId, depth: 1, model_version: '2' });
      const shadowJob = (await h.api('GET', `/v2/jobs/${linked[0].job_id}`)).body;
      expect(shadowJob.input).toEqual((await finalJob(jobId)).input);
    }
    const shadowIds = shadows.map((s: { job_id: string }) => s.job_id);
    // The shadows are final: their outcome's transaction wrote any cascade and event it would ever write.
    const cascades = await h.knex('model_jobs').whereIn('source_job_id', shadowIds).count<{ count: string }[]>('* as count');
    expect(Number(cascades[0].count)).toBe(0);
    const events = await h
      .knex('webhook_events')
      .whereRaw(`data->>'job_id' = any(?)`, [shadowIds])
      .count<{ count: string }[]>('* as count');
    expect(Number(events[0].count)).toBe(0);
    // Each service is as its own (primary) job left it, and only primary jobs announced service events (3 + 3).
    expect(await services()).toEqual(before);
    const serviceEvents = await h
      .knex('webhook_events')
      .where({ client_id: clientId })
      .whereLike('type', 'service.%')
      .count<{ count: string }[]>('* as count');
    expect(Number(serviceEvents[0].count)).toBe(6);
    // The primary jobs' cascades fired (the subscription works); the shadows' did not.
    expect(
      Number(
        (
          await h.knex('model_jobs').whereIn('source_job_id', jobs).where({ trigger: 'cascade' }).count<{ count: string }[]>('* as count')
        )[0].count,
      ),
    ).toBe(3);

    const report = (await h.api('GET', `${base}/assignments/shadow-v2/report`)).body;
    expect(report).toMatchObject({ role: 'shadow', status: 'active', model_version: '2', primary_key: 'default' });
    expect(report.primary).toMatchObject({ jobs: 3, succeeded: 3, failed: 0, success_rate: 1, failure_rate: 0 });
    expect(report.candidate).toMatchObject({ jobs: 3, succeeded: 3, failed: 0, success_rate: 1 });
    expect(report.candidate.latency_ms.p50).toEqual(expect.any(Number));
    // 1 and 2 seats agree exactly; 3 seats scores 4 on v2: out of the 0.5 tolerance.
    expect(report.agreement).toMatchObject({ pairs: 3, compared: 3, exact_matches: 2, exact_match_rate: 0.6667 });
    expect(report.agreement.fields).toEqual([{ field: 'score', tolerance: 0.5, compared: 3, within_tolerance: 2, share: 0.6667 }]);
    expect(report.agreement.disagreements).toEqual([
      {
        primary_job_id: jobs[2],
        shadow_job_id: expect.any(String),
        primary_job: `/v2/jobs/${jobs[2]}`,
        shadow_job: expect.stringMatching(/^\/v2\/jobs\//),
        fields: ['score'],
      },
    ]);
    const rerun = await h.api('POST', `/v2/jobs/${shadowIds[0]}/rerun`);
    expect(rerun.status).toBe(422);
    expect(rerun.body.message).toContain('shadow');
    const disagreeing = (await h.api('GET', report.agreement.disagreements[0].shadow_job)).body;
    expect(disagreeing).toMatchObject({ trigger: 'shadow', output: { score: 4 } });

    // Rolled back: archived with the reason, and the next primary job has no shadow.
    const rolledBack = await h.api('POST', `${base}/assignments/shadow-v2/rollback`, { body: { reason: 'disagrees on large services' } });
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body).toMatchObject({ status: 'archived', status_reason: 'rolled back: disagrees on large services' });
    const after = await initService(h, base, ids[0], { seats: 1 });
    await finalJob(after.body.job_id);
    expect((await h.knex('model_jobs').where({ source_job_id: after.body.job_id, trigger: 'shadow' })).length).toBe(0);
    // The report stays readable after the rollout ended.
    expect((await h.api('GET', `${base}/assignments/shadow-v2/report`)).body).toMatchObject({ status: 'archived', candidate: { jobs: 3 } });
  });

  it('reports a canary: counts and rates per side match the jobs', async () => {
    const { modelId, clientId, base, ids } = await rollout(4);
    await eventually(async () => (await h.api('GET', `/v2/clients/${clientId}/jobs?status=success`)).body.items.length === 4);
    expect((await put(base, 'canary', { model_id: modelId, model_version: '3', role: 'canary', settings: { share: 50 } })).status).toBe(
      201,
    );
    const canaries = (await h.api('GET', `${base}/assignments/canary/canary`)).body.services;
    const versions = await versionsAfterInit(base, ids);
    const all = await eventually(async () => {
      const items = (await h.api('GET', `/v2/clients/${clientId}/jobs?limit=200`)).body.items;
      return items.filter((j: any) => ['success', 'failure'].includes(j.status)).length === 8 && items;
    });
    expect(canaries).toHaveLength(2);
    const report = (await h.api('GET', `${base}/assignments/canary/report`)).body;
    const since = Date.parse(report.since);
    const inRollout = all.filter((j: any) => Date.parse(j.created_at) >= since);
    const onCandidate = inRollout.filter((j: any) => j.model_version === '3');
    expect(onCandidate).toHaveLength(Object.values(versions).filter((v) => v === '3').length);
    expect(report.candidate).toMatchObject({ jobs: onCandidate.length, succeeded: 0, failed: onCandidate.length, failure_rate: 1 });
    expect(report.primary).toMatchObject({ jobs: inRollout.length - onCandidate.length, failed: 0, success_rate: 1 });
    expect(report).not.toHaveProperty('agreement');
  });

  it('promotes a canary: its dry run answers what the real call does, and the services then run the candidate', async () => {
    const { modelId, base, ids } = await rollout(5);
    expect((await put(base, 'canary', { model_id: modelId, model_version: '2', role: 'canary', settings: { share: 40 } })).status).toBe(
      201,
    );
    const canaries = (await h.api('GET', `${base}/assignments/canary/canary`)).body.services;
    const dry = await h.api('POST', `${base}/assignments/canary/promote?dry_run=true`);
    expect(dry.status).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    expect((await h.api('GET', `${base}/assignments/default`)).body.model_version).toBe('1');
    expect((await h.api('GET', `${base}/assignments/canary`)).status).toBe(200);

    const real = await h.api('POST', `${base}/assignments/canary/promote`);
    expect(real.status).toBe(200);
    expect(real.body.services_already_on_candidate).toEqual(canaries);
    expect(canaries).toHaveLength(2);
    expect([...real.body.services_moved].sort()).toEqual(ids.filter((id) => !canaries.includes(id)));
    expect({ moved: dry.body.services_moved, already: dry.body.services_already_on_candidate }).toEqual({
      moved: real.body.services_moved,
      already: real.body.services_already_on_candidate,
    });
    expect(real.body.primary).toMatchObject({ assignment_key: 'default', model_version: '2', status: 'active' });
    expect(real.body.archived).toMatchObject({ assignment_key: 'canary', status: 'archived', status_reason: 'promoted' });
    expect((await h.api('GET', `${base}/assignments/default`)).body.model_version).toBe('2');
    expect((await h.api('GET', `${base}/assignments/canary`)).status).toBe(404);
    expect(Object.values(await versionsAfterInit(base, ids))).toEqual(ids.map(() => '2'));
  });

  it("answers a promotion a service's features block with the upsert's 422, on the dry run as on the real call", async () => {
    const modelId = await activeModel(h, { handlers: VERSIONED });
    const { base } = await tenantWithDomain(h, { modelId });
    await addVersion(h, modelId, '2', V2_FEATURES);
    expect((await initService(h, base, 'big', { seats: 450 })).status).toBe(202);
    expect((await put(base, 'shadow', { model_id: modelId, model_version: '2', role: 'shadow' })).status).toBe(201);
    const dry = await h.api('POST', `${base}/assignments/shadow/promote?dry_run=true`);
    const real = await h.api('POST', `${base}/assignments/shadow/promote`);
    expect(real.status).toBe(422);
    expect(real.body.blocking_services).toEqual([{ service_id: 'big', feature: 'seats', value: 450 }]);
    expect(dry.status).toBe(422);
    expect(dry.body).toEqual(real.body);
    expect((await h.api('GET', `${base}/assignments/shadow`)).body.status).toBe('active');
  });

  it('rolls a canary back by itself once its failure rate passes the guardrail, with the event delivered', async () => {
    const { modelId, clientId, base, ids } = await rollout(3);
    const hook = await h.api('POST', `/v2/clients/${clientId}/webhooks`, {
      body: { url: receiver.url(`guardrail-${clientId}`), event_types: ['assignment.rolled_back'] },
    });
    expect(hook.status).toBe(201);
    const guardrail = { max_failure_rate: 0.5, min_jobs: 3 };
    expect(
      (await put(base, 'canary', { model_id: modelId, model_version: '3', role: 'canary', settings: { share: 100, guardrail } })).status,
    ).toBe(201);
    const versions = await versionsAfterInit(base, ids);
    expect(Object.values(versions)).toEqual(['3', '3', '3']);

    const event = await eventually(async () => receiver.requests(`guardrail-${clientId}`)[0], 30000, 'assignment.rolled_back');
    expect(event.json.type).toBe('assignment.rolled_back');
    expect(event.json.data).toMatchObject({
      automatic: true,
      canary: { finished: 3, failed: 3 },
      assignment: { assignment_key: 'canary', status: 'archived' },
    });
    expect(event.json.data.reason).toContain('guardrail');
    const history = (await h.api('GET', `${base}/assignments?status=all`)).body.items.filter((a: any) => a.assignment_key === 'canary');
    expect(history).toEqual([
      expect.objectContaining({ status: 'archived', archived_by: 'guardrail', status_reason: event.json.data.reason }),
    ]);
    // Back on the primary.
    expect(Object.values(await versionsAfterInit(base, ids))).toEqual(['1', '1', '1']);
  });
});
