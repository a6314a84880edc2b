import type { ChildProcess } from 'node:child_process';
import { Harness, uid } from '../../helpers/harness';
import { activeModel, eventually } from '../../helpers/fixtures';
import { AwsStandIn, TEST_AWS } from '../../helpers/aws-stand-in';
import { spawnWorkerProcess, killHard } from '../../helpers/worker-process';
import { testEnv } from '../../helpers/test-env';
import { parseSamples, valueOf, Sample } from '../../helpers/prometheus';
import { freePort } from '../../../src/dev/temporal/dev-server';

describe('metrics after a job runs end to end', () => {
  let h: Harness;
  let lambda: AwsStandIn;
  let worker: ChildProcess & { output(): string };
  let workerMetricsUrl: string;

  beforeAll(async () => {
    lambda = await AwsStandIn.start(() => ({ status: 202 }));
    h = await Harness.start();
    const [port, sdkPort] = [await freePort(), await freePort()];
    workerMetricsUrl = `http://127.0.0.1:${port}/metrics`;
    // The production worker entry, as a process of its own: the SDK's Runtime (and its Prometheus exporter) is one per process.
    worker = await spawnWorkerProcess({
      DATABASE_URL: testEnv.databaseUrl,
      TEMPORAL_ADDRESS: testEnv.temporalAddress,
      TEMPORAL_TASK_QUEUE: h.config.temporal.taskQueue,
      PUBLIC_BASE_URL: h.baseUrl,
      WORKER_METRICS_PORT: String(port),
      WORKER_SDK_METRICS_PORT: String(sdkPort),
      AWS_ENDPOINT_URL_LAMBDA: lambda.url,
      AWS_REGION: TEST_AWS.region,
      AWS_ACCESS_KEY_ID: TEST_AWS.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_AWS.credentials.secretAccessKey,
    });
  });
  afterAll(async () => {
    if (worker) await killHard(worker);
    await h?.stop();
    await lambda?.stop();
  });

  async function scrape(url: string): Promise<{ text: string; samples: Sample[]; contentType: string | null }> {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const text = await res.text();
    return { text, samples: parseSamples(text), contentType: res.headers.get('content-type') };
  }

  it('counts the HTTP requests, the job, its completion, its cascades and the pool, in the API and the worker', async () => {
    const fn = `arn:aws:lambda:eu-west-1:123456789012:function:${uid('fn')}`;
    const source = await activeModel(h, { handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } } });
    const target = await activeModel(h);
    const retired = await activeModel(h);
    for (const to of [target, retired]) {
      const sub = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
        body: {
          trigger_event: 'inference_complete',
          target_model_id: to,
          target_action: 'inference',
          input_source: 'trigger_output',
          label: to,
        },
      });
      expect(sub.status).toBe(201);
    }
    // The retired target has no active version when the cascade fires: that entry fails, the completion is a 207.
    expect((await h.api('PUT', `/v2/models/${retired}/versions/1/new_status`, { body: { status: 'failed' } })).status).toBe(200);

    const started = await h.api('POST', `/v2/models/${source}/versions/1/infer`, { body: { input: { n: 1 } } });
    expect(started.status).toBe(202);
    const jobPath = `/v2/models/${source}/versions/1/jobs/${started.body.job_id}`;
    await eventually(async () => (await h.api('GET', jobPath)).body.status === 'running', 20000, 'the job to be dispatched');
    const completed = await h.api('POST', `${jobPath}/complete`, { body: { status: 'success', output: { score: 1 } } });
    expect(completed.status).toBe(207);
    expect((await h.api('POST', `${jobPath}/complete`, { body: { status: 'failure' } })).status).toBe(409);
    const cascadeJob = completed.body.triggered_events.find((e: { job_id?: string }) => e.job_id).job_id;
    await eventually(
      async () => (await h.api('GET', `/v2/models/${target}/versions/1/jobs/${cascadeJob}`)).body.status === 'success',
      20000,
      'the cascade job',
    );

    const api = await scrape(`${h.baseUrl}/metrics`);
    expect(api.contentType).toContain('text/plain');
    const http = (route: string, method: string, status: string) =>
      valueOf(api.samples, 'mos_http_request_duration_seconds_count', { route, method, status });
    expect(http('/v2/models/{model_id}/versions/{model_version}/infer', 'POST', '202')).toBe(1);
    expect(http('/v2/models/{model_id}/versions/{model_version}/jobs/{model_job_id}/complete', 'POST', '207')).toBe(1);
    expect(http('/v2/models/{model_id}/versions/{model_version}/jobs/{model_job_id}/complete', 'POST', '409')).toBe(1);
    expect(valueOf(api.samples, 'mos_http_requests_in_flight')).toBe(1); // the scrape itself
    expect(valueOf(api.samples, 'mos_jobs_started_total', { job_type: 'inference', trigger: 'direct' })).toBe(1);
    expect(valueOf(api.samples, 'mos_job_completion_reports_total', { outcome: '207' })).toBe(1);
    expect(valueOf(api.samples, 'mos_job_completion_reports_total', { outcome: '409' })).toBe(1);
    expect(valueOf(api.samples, 'mos_job_completion_reports_total', { outcome: '200' })).toBe(0); // initialised, never moved
    expect(valueOf(api.samples, 'mos_temporal_client_duration_seconds_count', { operation: 'start', outcome: 'ok' })).toBe(1);
    expect(valueOf(api.samples, 'mos_temporal_client_duration_seconds_count', { operation: 'update', outcome: 'ok' })).toBe(1);
    expect(valueOf(api.samples, 'mos_db_pool_max')).toBe(5);
    for (const state of ['used', 'idle', 'waiting'])
      expect(valueOf(api.samples, 'mos_db_pool_connections', { state })).toEqual(expect.any(Number));
    // No id reaches a label: not the job's, not the model's.
    expect(api.text).not.toContain(started.body.job_id);
    expect(api.text).not.toContain(source);

    const own = await scrape(workerMetricsUrl);
    const w = own.samples;
    expect(valueOf(w, 'mos_jobs_finished_total', { job_type: 'inference', status: 'success' })).toBe(2);
    expect(valueOf(w, 'mos_job_duration_seconds_count', { job_type: 'inference', status: 'success' })).toBe(2);
    expect(valueOf(w, 'mos_cascade_entries_total', { outcome: 'fired' })).toBe(1);
    expect(valueOf(w, 'mos_cascade_entries_total', { outcome: 'failed' })).toBe(1);
    expect(valueOf(w, 'mos_dispatch_attempts_total', { handler: 'lambda' })).toBe(1);
    expect(valueOf(w, 'mos_dispatch_attempts_total', { handler: 'in_process' })).toBe(1);
    expect(valueOf(w, 'mos_dispatch_failures_total')).toBe(0);
    expect(valueOf(w, 'mos_jobs_started_total', { job_type: 'inference', trigger: 'cascade' })).toBe(1);
    expect(valueOf(w, 'mos_db_pool_max')).toBe(4); // DATABASE_POOL_MAX of the processes tests spawn
    expect(valueOf(w, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // The Temporal SDK's own worker metrics, from its Prometheus exporter, on the same port.
    expect(valueOf(w, 'temporal_worker_task_slots_available', { worker_type: 'ActivityWorker' })).toBeGreaterThan(0);
    // Activities: both jobs' dispatches and the start of the cascade job; the claims and outcomes are local activities.
    expect(valueOf(w, 'temporal_activity_execution_latency_count')).toBeGreaterThanOrEqual(3);
    expect(valueOf(w, 'temporal_local_activity_execution_latency_count')).toBeGreaterThanOrEqual(4);
    expect(valueOf(w, 'temporal_workflow_task_execution_latency_count')).toBeGreaterThan(0);
  });

  it('stops the worker cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((r) => worker.once('exit', (code) => r(code)));
    worker.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(worker.output()).toContain('worker stopped');
  });
});
