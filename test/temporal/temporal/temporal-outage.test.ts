import { LambdaClient } from '@aws-sdk/client-lambda';
import { Harness } from '../../helpers/harness';
import { AwsStandIn, TEST_AWS } from '../../helpers/aws-stand-in';
import { activeModel, eventually } from '../../helpers/fixtures';
import { FaultProxy, FaultyLink } from '../../helpers/toxiproxy';
import { testEnv } from '../../helpers/test-env';
import { findJob } from '../../../src/db/jobs.repository';

const LAMBDA = { training: { type: 'lambda', arn: 'fn' }, inference: { type: 'lambda', arn: 'fn' } };

/** The API's Temporal client goes through Toxiproxy; the worker keeps its own direct connection. */
describe('Temporal unreachable from the API', () => {
  let faults: FaultProxy;
  let temporal: FaultyLink;
  let sink: AwsStandIn;
  let h: Harness;
  beforeAll(async () => {
    sink = await AwsStandIn.start(() => ({ status: 202 }));
    faults = await FaultProxy.start();
    temporal = await faults.link('temporal', testEnv.temporalAddress);
    h = await Harness.start({
      worker: true,
      temporalAddress: temporal.address,
      env: { COMPLETION_WAIT_SECONDS: '2' },
      lambda: new LambdaClient({ ...TEST_AWS, endpoint: sink.url }),
    });
  });
  afterAll(async () => {
    await temporal.restore();
    await h.stop();
    await sink.stop();
    await faults.stop();
  });

  const timed = async (method: string, path: string, body?: unknown) => {
    const started = Date.now();
    const res = await h.api(method, path, { body, timeoutMs: 20000 });
    return { ...res, ms: Date.now() - started };
  };

  it('accepts job starts at once, answers completions 503 naming Temporal within the wait, and runs the jobs once it is back', async () => {
    const modelId = await activeModel(h, { handlers: LAMBDA });
    const running = (await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: {} })).body.job_id;
    const runningPath = `/v2/models/${modelId}/versions/1/jobs/${running}`;
    await eventually(async () => (await h.api('GET', runningPath)).body.status === 'running', 20000, 'dispatch');

    await temporal.cut();
    const start = await timed('POST', `/v2/models/${modelId}/versions/1/infer`, {});
    expect(start.status).toBe(202);
    expect(start.ms).toBeLessThan(5000 + 4000); // the 5 s launch wait, with room for a loaded CI machine
    const complete = await timed('POST', `${runningPath}/complete`, { status: 'success' });
    expect(complete.status).toBe(503);
    expect(complete.ms).toBeLessThan(2000 + 4000); // the 2 s wait, with room for a loaded CI machine
    expect(complete.body.message).toContain('Temporal');
    expect(complete.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await h.api('GET', '/v2/health')).status).toBe(503);

    await temporal.restore();
    // The client reconnects with gRPC's backoff; health says when it is through.
    await eventually(async () => (await h.api('GET', '/v2/health')).status === 200, 60000, 'Temporal to answer the API again');
    // What the worker's reconciler does for every pending row, done here for this job alone: the shared test
    // database holds other files' pending rows, which a reconciler pass would start on this file's task queue.
    const pending = (await findJob(h.knex, start.body.job_id))!;
    expect(pending.status).toBe('pending');
    await h.gateway.launch(pending);
    await eventually(
      async () => (await h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${start.body.job_id}`)).body.status === 'running',
      30000,
      'the job started while Temporal was away to run',
    );
    const done = await eventually(
      async () => {
        const res = await h.api('POST', `${runningPath}/complete`, { body: { status: 'success' } });
        return res.status === 200 && res;
      },
      30000,
      'the completion once Temporal is back',
    );
    expect(done.body.status).toBe('success');
  }, 180000);
});
