import { LambdaClient } from '@aws-sdk/client-lambda';
import { Harness } from '../../test/helpers/harness';
import { activeModel, ECHO_HANDLERS, eventually } from '../../test/helpers/fixtures';
import { AwsStandIn, TEST_AWS } from '../../test/helpers/aws-stand-in';
import { FaultProxy, FaultyLink, hostPort } from '../../test/helpers/toxiproxy';
import { testEnv } from '../../test/helpers/test-env';
import { lambdaHandler } from '../src';

const OUTAGE_MS = 10_000;

/**
 * A Lambda handler written with the kit, against the real service: Lambda delivers the job twice, and the API's
 * Postgres (behind Toxiproxy) is away for 10 s while the handler reports. The model runs once and the completion is
 * recorded once, after the outage, through the 503s it met.
 */
describe('the handler kit through a Postgres outage', () => {
  let faults: FaultProxy;
  let postgres: FaultyLink;
  let lambda: AwsStandIn;
  let h: Harness;
  beforeAll(async () => {
    faults = await FaultProxy.start();
    postgres = await faults.link('postgres', hostPort(testEnv.databaseUrl));
    lambda = await AwsStandIn.start(() => ({ status: 202 }));
    h = await Harness.start({
      worker: true,
      databaseUrl: postgres.url(testEnv.databaseUrl),
      workerDatabaseUrl: testEnv.databaseUrl,
      lambda: new LambdaClient({ ...TEST_AWS, endpoint: lambda.url, maxAttempts: 1 }),
    });
  });
  afterAll(async () => {
    await postgres.restore();
    await h.stop();
    await lambda.stop();
    await faults.stop();
  });

  it('runs a doubled dispatch once and reports it once, after waiting out the outage', async () => {
    const modelId = await activeModel(h, {
      handlers: { training: ECHO_HANDLERS.training, inference: { type: 'lambda', arn: 'kit-scorer' } },
    });
    const started = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: { seats: 12 } } });
    const jobId = started.body.job_id as string;
    const invoke = await eventually(async () => lambda.requests.find((r) => r.body.includes(jobId)), 30000, 'the Lambda invoke');
    const event = JSON.parse(invoke.body);

    let runs = 0;
    const answers: number[] = [];
    const countingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      answers.push(response.status);
      return response;
    };
    const handler = lambdaHandler(async (job) => ({ seats: job.input.seats, run: ++runs }), { fetch: countingFetch, maxDelayMs: 2000 });

    await postgres.cut();
    const outageOver = new Promise<void>((resolve) => setTimeout(() => void postgres.restore().then(resolve), OUTAGE_MS));
    // Lambda's at-least-once delivery: the same event twice, at once.
    const results = await Promise.all([handler(event), handler(event)]);
    await outageOver;

    expect(results.map((r) => r.outcome).sort()).toEqual(['duplicate', 'reported']);
    expect(runs).toBe(1);
    // Every report before the outage ended met a 503 (never a 500); one report was taken.
    expect(answers.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(answers.filter((s) => s !== 503)).toEqual([200]);
    const job = await h.api('GET', `/v2/jobs/${jobId}?wait=30`);
    expect(job.body).toMatchObject({ status: 'success', output: { seats: 12, run: 1 } });
  });
});
