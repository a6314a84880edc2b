import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Harness } from '../../helpers/harness';
import { eventually } from '../../helpers/fixtures';
import { recordingFetch, stableExamples, RecordedExamples } from '../../helpers/recording-fetch';
import { createApiClient, ApiClient } from '../../../client';
import { OPERATIONS } from '../../../src/openapi/operations';
import { startReceiver } from '../../helpers/webhook-receiver';

const EXAMPLES_FILE = path.resolve(__dirname, '../../../src/openapi/examples.json');
const DEPARTURE = '2031-07-01T09:30:00.000Z';
const FEATURES = [
  { name: 'seats', json_schema: { type: 'integer', minimum: 1, maximum: 500 }, mandatory: true },
  { name: 'cabin', json_schema: { type: 'string', enum: ['economy', 'business'], default: 'economy' }, mandatory: true },
];
const MANUAL = { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'manual' } } as const;
const ECHO = { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } } as const;

/** The data of a typed-client call, or a failure naming what the API said. */
async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new Error(`${response.url} → ${response.status} ${JSON.stringify(error)}`);
  return data as T;
}

/**
 * Walks every operation once with the typed client against the real service, and keeps the payloads as the
 * document's examples: src/openapi/examples.json must equal what this walk records (UPDATE_EXAMPLES=1 rewrites it).
 */
describe('the examples of the OpenAPI document', () => {
  let h: Harness;
  let api: ApiClient;
  /** For polling: what it reads depends on timing, so it is not recorded. */
  let reader: ApiClient;
  const recorded: RecordedExamples = {};
  beforeAll(async () => {
    // The walk's webhook receiver listens on 127.0.0.1; stableExamples shows it as https://hooks.example.com.
    h = await Harness.start({
      worker: true,
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1/32', WEBHOOK_RETRY_INITIAL_MS: '500' },
    });
    api = createApiClient({ baseUrl: h.baseUrl, token: () => h.adminToken(), fetch: recordingFetch(recorded) });
    reader = createApiClient({ baseUrl: h.baseUrl, token: () => h.adminToken() });
  });
  afterAll(() => h.stop());

  const running = (jobId: string) =>
    eventually(
      async () => (await ok(reader.GET('/v2/jobs/{job_id}', { params: { path: { job_id: jobId } } }))).status === 'running',
      20000,
      `job ${jobId} running`,
    );
  const finished = (jobId: string) =>
    eventually(
      async () =>
        ['success', 'failure'].includes((await ok(reader.GET('/v2/jobs/{job_id}', { params: { path: { job_id: jobId } } }))).status),
      20000,
      `job ${jobId} finished`,
    );

  it('are recorded from a walk through every operation', async () => {
    const client = { client_id: 'globex' };
    const domain = { ...client, domain_id: 'eu-flights' };
    const service = { ...domain, service_id: 'LH-400' };

    await ok(api.GET('/v2/health'));
    await ok(api.GET('/v2/health/live'));
    await ok(api.GET('/v2/health/ready'));
    await ok(api.PUT('/v2/clients/{client_id}', { params: { path: client }, body: { name: 'Globex' } }));
    await ok(
      api.PUT('/v2/clients/{client_id}', {
        params: { path: client },
        body: { name: 'Globex Airways', limits: { jobs_per_second: 20, burst: 50, max_running_jobs: 100 } },
      }),
    );
    await ok(api.GET('/v2/clients/{client_id}', { params: { path: client } }));
    await ok(api.PUT('/v2/clients/{client_id}/new_status', { params: { path: client }, body: { status: 'active' } }));
    // Listed by a user of globex alone: other tests' tenants share this database.
    const globexUser = createApiClient({
      baseUrl: h.baseUrl,
      token: () => h.idp.human('gina', ['client:globex'], ['client_read']),
      fetch: recordingFetch(recorded),
    });
    await ok(globexUser.GET('/v2/clients', { params: { query: { status: 'active' } } }));

    // Models: one whose inference waits for a report, one that echoes, one never activated (its cascades fail).
    await ok(
      api.POST('/v2/models', {
        body: {
          id: 'fare-model',
          name: 'Fare model',
          description: 'Predicts fares per departure',
          metadata: { team: 'pricing' },
          handlers: MANUAL,
          version: '1',
          version_description: 'first cut',
          features: FEATURES,
        },
      }),
    );
    await ok(api.GET('/v2/models/{model_id}', { params: { path: { model_id: 'fare-model' } } }));
    await ok(
      api.PUT('/v2/models/{model_id}', {
        params: { path: { model_id: 'fare-model' } },
        body: { description: 'Predicts fares per departure and cabin' },
      }),
    );
    await ok(
      api.PUT('/v2/models/{model_id}/versions/{model_version}/new_status', {
        params: { path: { model_id: 'fare-model', model_version: '1' } },
        body: { status: 'active' },
      }),
    );
    await ok(
      api.POST('/v2/models/{model_id}/versions', {
        params: { path: { model_id: 'fare-model' } },
        body: { version: '2', description: 'retrained weekly', metadata: {}, features: FEATURES },
      }),
    );
    await ok(
      api.GET('/v2/models/{model_id}/versions/{model_version}', { params: { path: { model_id: 'fare-model', model_version: '2' } } }),
    );
    await ok(
      api.PUT('/v2/models/{model_id}/versions/{model_version}/artifacts', {
        params: { path: { model_id: 'fare-model', model_version: '2' } },
        body: {
          artifacts: [
            {
              name: 'model',
              uri: 's3://ml-models/fare-model/2/model.onnx',
              sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
              size_bytes: 48213,
              format: 'onnx',
            },
          ],
          source: 'weekly retrain of 2025-05',
        },
      }),
    );
    const training = await ok(
      api.POST('/v2/models/{model_id}/versions/{model_version}/train', {
        params: { path: { model_id: 'fare-model', model_version: '2' }, header: { 'Idempotency-Key': 'train-fare-model-2' } },
        body: { input: { dataset: 's3://fares/2025-05' } },
      }),
    );
    await finished(training.job_id);
    await ok(api.GET('/v2/models/{model_id}/versions', { params: { path: { model_id: 'fare-model' } } }));
    for (const [alias, version] of [
      ['champion', '2'],
      ['challenger', '1'],
    ]) {
      await ok(
        api.PUT('/v2/models/{model_id}/aliases/{alias}', {
          params: { path: { model_id: 'fare-model', alias } },
          body: { version },
        }),
      );
    }
    await ok(api.GET('/v2/models/{model_id}/aliases/{alias}', { params: { path: { model_id: 'fare-model', alias: 'champion' } } }));
    await ok(api.GET('/v2/models/{model_id}/aliases', { params: { path: { model_id: 'fare-model' } } }));
    await ok(api.DELETE('/v2/models/{model_id}/aliases/{alias}', { params: { path: { model_id: 'fare-model', alias: 'challenger' } } }));
    for (const [tag_key, value] of [
      ['stage', 'pilot'],
      ['team', 'pricing'],
    ]) {
      await ok(api.PUT('/v2/models/{model_id}/tags/{tag_key}', { params: { path: { model_id: 'fare-model', tag_key } }, body: { value } }));
    }
    await ok(api.DELETE('/v2/models/{model_id}/tags/{tag_key}', { params: { path: { model_id: 'fare-model', tag_key: 'stage' } } }));
    const v2 = { model_id: 'fare-model', model_version: '2' };
    for (const [tag_key, value] of [
      ['note', 'retrain weekly'],
      ['dataset', 'fares-2025-05'],
    ]) {
      await ok(
        api.PUT('/v2/models/{model_id}/versions/{model_version}/tags/{tag_key}', { params: { path: { ...v2, tag_key } }, body: { value } }),
      );
    }
    await ok(api.DELETE('/v2/models/{model_id}/versions/{model_version}/tags/{tag_key}', { params: { path: { ...v2, tag_key: 'note' } } }));
    await ok(api.GET('/v2/model-versions', { params: { query: { alias: 'champion', tag: 'dataset=fares-2025-05' } } }));
    for (const [id, name] of [
      ['fare-notifier', 'Fare notifier'],
      ['fare-archiver', 'Fare archiver'],
    ]) {
      await ok(
        api.POST('/v2/models', { body: { id, name, description: `${name} (echo)`, metadata: {}, handlers: ECHO, features: FEATURES } }),
      );
    }
    await ok(
      api.PUT('/v2/models/{model_id}/versions/{model_version}/new_status', {
        params: { path: { model_id: 'fare-notifier', model_version: '1' } },
        body: { status: 'active' },
      }),
    );
    await ok(api.GET('/v2/models', { params: { query: { name: 'Fare model' } } }));
    // A model registered by mistake, retired: its version, then the model (nothing references them).
    await ok(
      api.POST('/v2/models', {
        body: {
          id: 'fare-model-draft',
          name: 'Fare model (draft)',
          description: 'registered twice by mistake',
          metadata: {},
          handlers: ECHO,
        },
      }),
    );
    await ok(
      api.DELETE('/v2/models/{model_id}/versions/{model_version}', {
        params: { path: { model_id: 'fare-model-draft', model_version: '1' } },
      }),
    );
    await ok(api.DELETE('/v2/models/{model_id}', { params: { path: { model_id: 'fare-model-draft' } } }));

    const notify = await ok(
      api.POST('/v2/models/{model_id}/event-subscriptions', {
        params: { path: { model_id: 'fare-model' } },
        body: {
          trigger_event: 'inference_complete',
          target_model_id: 'fare-notifier',
          target_action: 'inference',
          input_source: 'trigger_output',
          label: 'notify on new fares',
        },
      }),
    );
    await ok(
      api.GET('/v2/models/{model_id}/event-subscriptions/{subscription_id}', {
        params: { path: { model_id: 'fare-model', subscription_id: notify.subscription_id } },
      }),
    );
    await ok(api.GET('/v2/models/{model_id}/event-subscriptions', { params: { path: { model_id: 'fare-model' } } }));
    const archive = await ok(
      api.POST('/v2/models/{model_id}/event-subscriptions', {
        params: { path: { model_id: 'fare-model' } },
        body: {
          trigger_event: 'inference_complete',
          target_model_id: 'fare-archiver',
          target_action: 'inference',
          input_source: 'stored',
          input: { bucket: 'fares-archive' },
          label: 'archive',
        },
      }),
    );

    // Tenant side: a domain with features, the default assignment, services.
    await ok(
      api.POST('/v2/clients/{client_id}/domains', { params: { path: client }, body: { domain_id: 'eu-flights', features: FEATURES } }),
    );
    await ok(api.PUT('/v2/clients/{client_id}/domains/{domain_id}/features', { params: { path: domain }, body: { features: FEATURES } }));
    await ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}/features', { params: { path: domain } }));
    await ok(api.PUT('/v2/clients/{client_id}/domains/{domain_id}/new_status', { params: { path: domain }, body: { status: 'active' } }));
    await ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}', { params: { path: domain } }));
    await ok(api.GET('/v2/clients/{client_id}/domains', { params: { path: client } }));
    await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/model/assign', { params: { path: domain }, body: { model_id: 'fare-model' } }),
    );
    await ok(
      api.PUT('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}', {
        params: { path: { ...domain, assignment_key: 'default' } },
        body: { model_id: 'fare-model', model_version: '1', role: 'pricing', settings: { currency: 'EUR' }, metadata: {} },
      }),
    );
    await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/assignments', {
        params: { path: domain },
        body: { assignment_key: 'notify', model_id: 'fare-notifier', model_version: '1' },
      }),
    );
    await ok(
      api.GET('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}', {
        params: { path: { ...domain, assignment_key: 'default' } },
      }),
    );
    await ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}/assignments', { params: { path: domain, query: { status: 'all' } } }));
    const domainRun = await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}/run', {
        params: { path: { ...domain, assignment_key: 'notify' }, header: { 'Idempotency-Key': 'notify-run-1' } },
        body: { input: { fare: 129.5 } },
      }),
    );

    const init = await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/init', {
        params: { path: domain, header: { 'Idempotency-Key': 'init-LH-400' } },
        body: { service_id: 'LH-400', departure_datetime: DEPARTURE, static_features: { seats: 180 } },
      }),
    );
    // A dry run first (recorded as the example): what a feature change would do, with nothing written.
    await ok(
      api.PUT('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}', {
        params: { path: service, query: { dry_run: true } },
        body: { static_features: { seats: 200, cabin: 'business' } },
      }),
    );
    await ok(
      api.PUT('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}', {
        params: { path: service },
        body: { departure_datetime: '2031-07-01T10:00:00.000Z' },
      }),
    );
    await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}/assignments', {
        params: { path: service },
        body: { assignment_key: 'notify', model_id: 'fare-notifier', model_version: '1', metadata: { reason: 'override' } },
      }),
    );
    await ok(
      api.PUT('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}/assignments/{assignment_key}', {
        params: { path: { ...service, assignment_key: 'upsell' } },
        body: { model_id: 'fare-notifier', model_version: '1' },
      }),
    );
    await ok(
      api.GET('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}/assignments/{assignment_key}', {
        params: { path: { ...service, assignment_key: 'upsell' } },
      }),
    );
    await ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}/assignments', { params: { path: service } }));
    await ok(
      api.GET('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}/effective-assignments', { params: { path: service } }),
    );
    await ok(
      api.GET('/v2/models/{model_id}/compatibility', { params: { path: { model_id: 'fare-model' }, query: { model_version: '2' } } }),
    );
    const serviceRun = await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}/assignments/{assignment_key}/run', {
        params: { path: { ...service, assignment_key: 'upsell' }, header: { 'Idempotency-Key': 'upsell-run-1' } },
        body: { input: { offer: 'extra legroom' } },
      }),
    );

    // The init job waits for its report; the completion fires both subscriptions, and the archiver (never
    // activated) fails its entry: a 207. Then a direct inference whose subscriptions all start: a 200.
    await running(init.job_id);
    const initCompletion = await ok(
      api.POST('/v2/models/{model_id}/versions/{model_version}/jobs/{model_job_id}/complete', {
        params: { path: { model_id: 'fare-model', model_version: '1', model_job_id: init.job_id } },
        body: { status: 'success', output: { fare: 129.5, currency: 'EUR' } },
      }),
    );
    await ok(
      api.PUT('/v2/models/{model_id}/event-subscriptions/{subscription_id}/new_status', {
        params: { path: { model_id: 'fare-model', subscription_id: archive.subscription_id } },
        body: { status: 'disabled' },
      }),
    );
    const direct = await ok(
      api.POST('/v2/models/{model_id}/versions/{model_version}/infer', {
        params: { path: { model_id: 'fare-model', model_version: '1' }, header: { 'Idempotency-Key': 'infer-1' } },
        body: { input: { route: 'FRA-JFK' }, metadata: { requested_by: 'analyst' } },
      }),
    );
    await running(direct.job_id);
    const completion = await ok(
      api.POST('/v2/models/{model_id}/versions/{model_version}/jobs/{model_job_id}/complete', {
        params: { path: { model_id: 'fare-model', model_version: '1', model_job_id: direct.job_id } },
        body: { status: 'success', output: { fare: 410 } },
      }),
    );
    const cascades = [...initCompletion.triggered_events, ...completion.triggered_events].flatMap((e) => (e.job_id ? [e.job_id] : []));
    for (const jobId of [domainRun.job_id, serviceRun.job_id, ...cascades]) await finished(jobId);
    await ok(
      api.DELETE('/v2/models/{model_id}/event-subscriptions/{subscription_id}', {
        params: { path: { model_id: 'fare-model', subscription_id: archive.subscription_id } },
      }),
    );

    await ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}', { params: { path: service } }));
    await ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}/services', { params: { path: domain } }));
    await ok(
      api.PUT('/v2/clients/{client_id}/domains/{domain_id}/service/{service_id}/new_status', {
        params: { path: service },
        body: { status: 'not_found' },
      }),
    );
    await ok(api.GET('/v2/jobs/{job_id}', { params: { path: { job_id: init.job_id } } }));
    await ok(
      api.GET('/v2/models/{model_id}/versions/{model_version}/jobs/{model_job_id}', {
        params: { path: { model_id: 'fare-model', model_version: '1', model_job_id: init.job_id } },
      }),
    );
    await ok(
      api.GET('/v2/models/{model_id}/versions/{model_version}/jobs', { params: { path: { model_id: 'fare-model', model_version: '1' } } }),
    );
    await ok(api.GET('/v2/clients/{client_id}/jobs', { params: { path: client, query: { job_type: 'inference' } } }));
    await ok(api.GET('/v2/jobs', { params: { query: { client_id: client.client_id, trigger: 'service_init' } } }));
    await ok(api.GET('/v2/jobs/{job_id}/lineage', { params: { path: { job_id: init.job_id } } }));
    // A re-run of the finished direct job (its handler waits for a report), then its cancellation.
    const rerun = await ok(api.POST('/v2/jobs/{job_id}/rerun', { params: { path: { job_id: direct.job_id } } }));
    await running(rerun.job_id);
    await ok(api.POST('/v2/jobs/{job_id}/cancel', { params: { path: { job_id: rerun.job_id } }, body: { reason: 'started by mistake' } }));

    // Schedules, before the webhooks (their changes are webhook events): each collection through every operation.
    // Calendars whose next 5 fires fall within a day: the recorded times are then the fixed time of stableExamples.
    const nightly = { cron: ['0 */2 * * *'], time_zone: 'Europe/Berlin', jitter_seconds: 300 };
    // A fixed past day, so the recorded nominal times are the same on every run.
    const backfill = { start_at: '2026-11-01T00:00:00.000Z', end_at: '2026-11-02T00:00:00.000Z' };
    const tenantSchedule = { domain_id: 'eu-flights', service_id: 'LH-400', spec: nightly, description: 're-scoring every two hours' };
    await ok(api.POST('/v2/clients/{client_id}/schedules', { params: { path: client, query: { dry_run: true } }, body: tenantSchedule }));
    const serviceSchedule = await ok(
      api.POST('/v2/clients/{client_id}/schedules', { params: { path: client, query: { dry_run: false } }, body: tenantSchedule }),
    );
    const ss = { ...client, schedule_id: serviceSchedule.schedule_id };
    await ok(api.GET('/v2/clients/{client_id}/schedules/{schedule_id}', { params: { path: ss } }));
    await ok(api.GET('/v2/clients/{client_id}/schedules', { params: { path: client, query: { domain_id: 'eu-flights' } } }));
    await ok(
      api.PUT('/v2/clients/{client_id}/schedules/{schedule_id}', {
        params: { path: ss },
        body: { policies: { overlap: 'skip', catchup_window_seconds: 3600, pause_on_failure: true } },
      }),
    );
    await ok(
      api.POST('/v2/clients/{client_id}/schedules/{schedule_id}/pause', { params: { path: ss }, body: { note: 'fleet migration' } }),
    );
    await ok(
      api.POST('/v2/clients/{client_id}/schedules/{schedule_id}/unpause', { params: { path: ss }, body: { note: 'migration done' } }),
    );
    await ok(api.POST('/v2/clients/{client_id}/schedules/{schedule_id}/trigger', { params: { path: ss }, body: {} }));
    await ok(api.POST('/v2/clients/{client_id}/schedules/{schedule_id}/backfill', { params: { path: ss }, body: backfill }));
    await ok(api.DELETE('/v2/clients/{client_id}/schedules/{schedule_id}', { params: { path: ss } }));

    const nightlyUtc = { cron: ['30 */3 * * *'], time_zone: 'UTC' };
    const trainingSchedule = await ok(
      api.POST('/v2/training-schedules', {
        params: { query: { dry_run: false } },
        body: {
          model_id: 'fare-model',
          model_version: '2',
          input: { epochs: 3 },
          spec: nightlyUtc,
          description: 'retraining every three hours',
        },
      }),
    );
    const ts = { schedule_id: trainingSchedule.schedule_id };
    await ok(api.GET('/v2/training-schedules/{schedule_id}', { params: { path: ts } }));
    await ok(api.GET('/v2/training-schedules', { params: { query: { model_id: 'fare-model' } } }));
    await ok(api.PUT('/v2/training-schedules/{schedule_id}', { params: { path: ts }, body: { input: { epochs: 5 } } }));
    await ok(api.POST('/v2/training-schedules/{schedule_id}/pause', { params: { path: ts }, body: { note: 'data freeze' } }));
    await ok(api.POST('/v2/training-schedules/{schedule_id}/unpause', { params: { path: ts }, body: {} }));
    await ok(api.POST('/v2/training-schedules/{schedule_id}/trigger', { params: { path: ts }, body: { overlap: 'skip' } }));
    await ok(api.POST('/v2/training-schedules/{schedule_id}/backfill', { params: { path: ts }, body: backfill }));
    await ok(api.DELETE('/v2/training-schedules/{schedule_id}', { params: { path: ts } }));

    const hourly = { intervals: [{ every_seconds: 3600, offset_seconds: 900 }] };
    const inference = await ok(
      api.POST('/v2/inference-schedules', {
        params: { query: { dry_run: false } },
        body: {
          model_id: 'fare-notifier',
          model_version: '1',
          input: { route: 'FRA-JFK' },
          spec: hourly,
          policies: { overlap: 'buffer_one' },
          // Created paused: no live fire lands in the recorded answers.
          paused: true,
          note: 'starts after review',
        },
      }),
    );
    const is = { schedule_id: inference.schedule_id };
    await ok(api.GET('/v2/inference-schedules/{schedule_id}', { params: { path: is } }));
    await ok(api.GET('/v2/inference-schedules', { params: { query: { model_id: 'fare-notifier' } } }));
    await ok(api.PUT('/v2/inference-schedules/{schedule_id}', { params: { path: is }, body: { description: 'hourly at :15' } }));
    await ok(api.POST('/v2/inference-schedules/{schedule_id}/pause', { params: { path: is }, body: { note: 'holiday' } }));
    await ok(api.POST('/v2/inference-schedules/{schedule_id}/unpause', { params: { path: is }, body: {} }));
    await ok(api.POST('/v2/inference-schedules/{schedule_id}/trigger', { params: { path: is }, body: {} }));
    await ok(
      api.POST('/v2/inference-schedules/{schedule_id}/backfill', {
        params: { path: is },
        body: { start_at: backfill.start_at, end_at: '2026-11-01T02:00:00.000Z', overlap: 'buffer_all' },
      }),
    );
    await ok(api.DELETE('/v2/inference-schedules/{schedule_id}', { params: { path: is } }));

    // Progressive delivery (docs/progressive-delivery.md): a canary of version 2 on half the services, read, its
    // promotion previewed, then rolled back. No job starts, so the report's counts are the same on every run.
    const canary = { ...domain, assignment_key: 'fare-model-v2' };
    await ok(
      api.PUT('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}', {
        params: { path: canary },
        body: {
          model_id: 'fare-model',
          model_version: '2',
          role: 'canary',
          settings: { share: 50, guardrail: { max_failure_rate: 0.2, min_jobs: 20 } },
        },
      }),
    );
    await ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}/canary', { params: { path: canary } }));
    await ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}/report', { params: { path: canary } }));
    await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}/promote', {
        params: { path: canary, query: { dry_run: true } },
      }),
    );
    await ok(
      api.POST('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}/rollback', {
        params: { path: canary },
        body: { reason: 'wait for the fleet migration' },
      }),
    );

    // Webhooks, last: nothing changes after they exist, so their logs hold only the walk's pings.
    const receiver = await startReceiver();
    try {
      const delivered = (read: () => Promise<{ status: string }>) =>
        eventually(async () => (await read()).status === 'succeeded', 45000, 'webhook delivery');
      const hook = await ok(
        api.POST('/v2/clients/{client_id}/webhooks', {
          params: { path: client },
          body: {
            url: receiver.url('globex/mos'),
            event_types: ['job.succeeded', 'job.failed', 'service.available', 'service.failed'],
            filter: { domain_id: 'eu-flights' },
            description: 'Ops alerts',
          },
        }),
      );
      const one = { ...client, webhook_id: hook.webhook_id };
      await ok(api.GET('/v2/clients/{client_id}/webhooks/{webhook_id}', { params: { path: one } }));
      await ok(
        api.PUT('/v2/clients/{client_id}/webhooks/{webhook_id}', {
          params: { path: one },
          body: { description: 'Ops alerts (pager)', event_types: ['job.failed', 'job.timed_out', 'service.failed'] },
        }),
      );
      await ok(api.GET('/v2/clients/{client_id}/webhooks', { params: { path: client, query: { status: 'active' } } }));
      await ok(api.POST('/v2/clients/{client_id}/webhooks/{webhook_id}/rotate-secret', { params: { path: one } }));
      const ping = await ok(api.POST('/v2/clients/{client_id}/webhooks/{webhook_id}/ping', { params: { path: one } }));
      const delivery = { ...one, delivery_id: ping.delivery_id };
      const readDelivery = async () =>
        ok(reader.GET('/v2/clients/{client_id}/webhooks/{webhook_id}/deliveries/{delivery_id}', { params: { path: delivery } }));
      await delivered(readDelivery);
      await ok(api.GET('/v2/clients/{client_id}/webhooks/{webhook_id}/deliveries/{delivery_id}', { params: { path: delivery } }));
      await ok(api.GET('/v2/clients/{client_id}/webhooks/{webhook_id}/deliveries', { params: { path: one } }));
      await ok(
        api.POST('/v2/clients/{client_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', { params: { path: delivery } }),
      );
      await delivered(readDelivery);
      await ok(api.DELETE('/v2/clients/{client_id}/webhooks/{webhook_id}', { params: { path: one } }));

      const platform = await ok(
        api.POST('/v2/webhooks', {
          body: {
            url: receiver.url('platform/mos'),
            event_types: ['version.status_changed', 'subscription.stale', 'job.failed'],
            filter: { model_id: 'fare-model' },
            description: 'Registry changes',
          },
        }),
      );
      const p = { webhook_id: platform.webhook_id };
      await ok(api.GET('/v2/webhooks/{webhook_id}', { params: { path: p } }));
      await ok(api.PUT('/v2/webhooks/{webhook_id}', { params: { path: p }, body: { status: 'disabled' } }));
      await ok(api.PUT('/v2/webhooks/{webhook_id}', { params: { path: p }, body: { status: 'active' } }));
      await ok(api.GET('/v2/webhooks', { params: { query: { status: 'active' } } }));
      await ok(api.POST('/v2/webhooks/{webhook_id}/rotate-secret', { params: { path: p } }));
      const platformPing = await ok(api.POST('/v2/webhooks/{webhook_id}/ping', { params: { path: p } }));
      const pd = { ...p, delivery_id: platformPing.delivery_id };
      const readPlatformDelivery = async () =>
        ok(reader.GET('/v2/webhooks/{webhook_id}/deliveries/{delivery_id}', { params: { path: pd } }));
      await delivered(readPlatformDelivery);
      await ok(api.GET('/v2/webhooks/{webhook_id}/deliveries/{delivery_id}', { params: { path: pd } }));
      await ok(api.GET('/v2/webhooks/{webhook_id}/deliveries', { params: { path: p } }));
      await ok(api.POST('/v2/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', { params: { path: pd } }));
      await delivered(readPlatformDelivery);
      await ok(api.DELETE('/v2/webhooks/{webhook_id}', { params: { path: p } }));
    } finally {
      await receiver.close();
    }

    // Non-JSON answers (the Prometheus text of /metrics) have no example.
    const missing = OPERATIONS.filter((op) => !op.contentType && !recorded[op.id]).map((op) => op.id);
    expect(missing).toEqual([]);
    expect(recorded.completeJob.responses).toEqual({ 207: expect.any(Object), 200: expect.any(Object) });
    expect(recorded.upsertClient.responses).toEqual({ 201: expect.any(Object), 200: expect.any(Object) });
  });

  it('in src/openapi/examples.json are the ones the walk recorded', () => {
    const fresh = stableExamples(recorded);
    if (process.env.UPDATE_EXAMPLES) writeFileSync(EXAMPLES_FILE, `${JSON.stringify(fresh, null, 2)}\n`);
    const stored = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8'));
    // On a difference (a payload changed on purpose): npm run examples:update, which also regenerates the client.
    expect(stored).toEqual(fresh);
  });
});
