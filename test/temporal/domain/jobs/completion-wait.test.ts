import { LambdaClient } from '@aws-sdk/client-lambda';
import { Harness } from '../../../helpers/harness';
import { AwsStandIn, TEST_AWS } from '../../../helpers/aws-stand-in';
import { activeModel, eventually } from '../../../helpers/fixtures';
import { FaultProxy, FaultyLink, hostPort } from '../../../helpers/toxiproxy';
import { testEnv } from '../../../helpers/test-env';

const WAIT_SECONDS = 2;
const LAMBDA = { training: { type: 'lambda', arn: 'fn' }, inference: { type: 'lambda', arn: 'fn' } };

/** The completion route answers within COMPLETION_WAIT_SECONDS whatever Temporal and the worker do. */
describe('a completion waits a bounded time for the workflow', () => {
  let h: Harness;
  let sink: AwsStandIn;
  let faults: FaultProxy;
  let workerDb: FaultyLink;
  beforeAll(async () => {
    // The Lambda stand-in accepts invokes and never reports: jobs wait for the completion route.
    sink = await AwsStandIn.start(() => ({ status: 202 }));
    faults = await FaultProxy.start();
    workerDb = await faults.link('worker-postgres', hostPort(testEnv.databaseUrl));
    h = await Harness.start({
      worker: true,
      lambda: new LambdaClient({ ...TEST_AWS, endpoint: sink.url }),
      workerDatabaseUrl: workerDb.url(testEnv.databaseUrl),
      env: { COMPLETION_WAIT_SECONDS: String(WAIT_SECONDS) },
    });
  });
  afterAll(async () => {
    await h.stop();
    await sink.stop();
    await faults.stop();
  });

  async function runningJob() {
    const modelId = await activeModel(h, { handlers: LAMBDA });
    const { body } = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: {} });
    const path = `/v2/models/${modelId}/versions/1/jobs/${body.job_id}`;
    await eventually(async () => (await h.api('GET', path)).body.status === 'running', 20000, 'dispatch');
    return path;
  }

  async function timedCompletion(path: string) {
    const started = Date.now();
    const res = await h.api('POST', `${path}/complete`, { body: { status: 'success', output: { n: 1 } }, timeoutMs: 15000 });
    return { ...res, ms: Date.now() - started };
  }

  it('answers 503 with Retry-After within the wait while no worker runs, saying the report was not taken; a repeat completes once the worker is back', async () => {
    const path = await runningJob();
    await h.stopWorker();
    const res = await timedCompletion(path);
    expect(res.ms).toBeLessThan(WAIT_SECONDS * 1000 + 4000);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.body.message).toContain('not taken');
    await h.startWorker();
    const done = await eventually(
      async () => {
        const again = await timedCompletion(path);
        return again.status !== 503 && again;
      },
      60000,
      'the completion once the worker is back',
    ); // the old worker's sticky queue times out first (10 s)
    expect(done.status).toBe(200);
    expect((await h.api('GET', path)).body).toMatchObject({ status: 'success', output: { n: 1 } });
  }, 120000);

  // The workflow takes a report in the step that records it in Postgres (one-step outcome, docs/temporal.md): while the
  // worker's Postgres is down the report is not taken, and the answer says so.
  it("answers 503 within the wait while the worker's Postgres is down, saying the report was not taken; a repeat answers once it is back", async () => {
    const path = await runningJob();
    await workerDb.cut();
    try {
      const res = await timedCompletion(path);
      expect(res.ms).toBeLessThan(WAIT_SECONDS * 1000 + 4000);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.body.message).toContain("the worker's database is unavailable");
    } finally {
      await workerDb.restore();
    }
    const done = await eventually(
      async () => {
        const again = await timedCompletion(path);
        return again.status !== 503 && again;
      },
      60000,
      'the completion once Postgres is back',
    );
    expect(done.status).toBe(200);
  }, 120000);
});
