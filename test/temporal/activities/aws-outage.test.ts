import { LambdaClient } from '@aws-sdk/client-lambda';
import { Harness, uid } from '../../helpers/harness';
import { activeModel, eventually } from '../../helpers/fixtures';
import { AwsStandIn, TEST_AWS } from '../../helpers/aws-stand-in';
import { FaultProxy, FaultyLink, hostPort } from '../../helpers/toxiproxy';
import { WorkflowNotFoundError } from '@temporalio/client';
import { workflowIdFor } from '../../../src/domain/ports/job-gateway.port';

/** The Lambda endpoint behind Toxiproxy: unreachable or throttling for a while, the job waits and is dispatched. */
describe('an AWS outage during dispatch', () => {
  let faults: FaultProxy;
  let link: FaultyLink;
  let lambda: AwsStandIn;
  let throttled = 0;
  let h: Harness;
  beforeAll(async () => {
    lambda = await AwsStandIn.start((req) =>
      req.url.includes('throttled') && throttled-- > 0
        ? {
            status: 429,
            headers: { 'x-amzn-errortype': 'TooManyRequestsException' },
            body: { Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded', message: 'Rate exceeded' },
          }
        : { status: 202 },
    );
    faults = await FaultProxy.start();
    link = await faults.link('lambda', hostPort(lambda.url));
    h = await Harness.start({ worker: true, lambda: new LambdaClient({ ...TEST_AWS, endpoint: link.url(lambda.url), maxAttempts: 1 }) });
  });
  // A failed test must not leave the next one behind a cut link.
  afterEach(async () => link.restore());
  afterAll(async () => {
    await h.stop();
    await lambda.stop();
    await faults.stop();
  });

  async function startJob(fn: string) {
    const modelId = await activeModel(h, { handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } } });
    const { body } = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: {} });
    return {
      jobId: body.job_id as string,
      path: `/v2/models/${modelId}/versions/1/jobs/${body.job_id}`,
      invokes: () => lambda.requests.filter((r) => r.url.includes(fn)).length,
    };
  }

  it('dispatches the job once the unreachable endpoint is back, and the job completes', async () => {
    await link.cut();
    const job = await startJob(uid('fn'));
    // Two dispatch attempts have run and failed, by the workflow's own record: only then can "no invoke" mean something.
    await eventually(
      async () => {
        // The API answers before its background start has reached Temporal: not found yet means not started yet.
        const described = await h.temporal.workflow
          .getHandle(workflowIdFor(job.jobId))
          .describe()
          .catch((err) => {
            if (err instanceof WorkflowNotFoundError) return undefined;
            throw err;
          });
        const dispatch = described?.raw.pendingActivities?.find((a) => a.activityType?.name === 'dispatchJob');
        return dispatch && (dispatch.attempt ?? 0) >= 3 && dispatch.lastFailure ? dispatch : undefined;
      },
      30000,
      'two failed dispatch attempts',
    );
    expect((await h.api('GET', job.path)).body.status).toBe('running');
    expect(job.invokes()).toBe(0);
    await link.restore();
    await eventually(async () => job.invokes() === 1, 30000, 'the invoke after the outage');
    const done = await h.api('POST', `${job.path}/complete`, { body: { status: 'success', output: { ok: 1 } } });
    expect(done.status).toBe(200);
  }, 60000);

  it('retries a throttled invoke until Lambda takes it', async () => {
    throttled = 2;
    const job = await startJob(`throttled-${uid('fn')}`);
    await eventually(async () => job.invokes() === 3, 30000, 'the invoke after throttling');
    expect((await h.api('GET', job.path)).body.status).toBe('running');
  }, 60000);
});
