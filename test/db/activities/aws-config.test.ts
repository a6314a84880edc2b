import { LambdaClient } from '@aws-sdk/client-lambda';
import { ECSClient } from '@aws-sdk/client-ecs';
import { dispatch, DispatchPayload } from '../../../activities/dispatch';
import { builtinImplementations } from '../../../activities/in-process/registry';
import { AwsStandIn } from '../../helpers/aws-stand-in';

const payload: DispatchPayload = {
  job_id: 'job-1',
  job_type: 'inference',
  model_id: 'm',
  model_version: '1',
  input: { a: 1 },
  completion: {
    method: 'POST',
    path: '/v2/models/m/versions/1/jobs/job-1/complete',
    url: 'http://api/v2/models/m/versions/1/jobs/job-1/complete',
  },
};

describe('AWS clients from the standard SDK configuration', () => {
  const saved = { ...process.env };
  let standIn: AwsStandIn;
  beforeAll(async () => {
    standIn = await AwsStandIn.start((req) =>
      req.url.includes('invocations') ? { status: 202 } : { status: 200, body: { tasks: [], failures: [] } },
    );
    Object.assign(process.env, {
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 'env-secret',
      AWS_ENDPOINT_URL_LAMBDA: standIn.url,
      AWS_ENDPOINT_URL_ECS: standIn.url,
    });
  });
  afterAll(async () => {
    process.env = saved;
    await standIn.stop();
  });

  it('honours AWS_ENDPOINT_URL_LAMBDA and AWS_REGION with a client built with no options', async () => {
    const result = await dispatch(
      { lambda: new LambdaClient({}), ecs: new ECSClient({}), inProcess: builtinImplementations },
      { type: 'lambda', arn: 'scorer', version: '7' },
      payload,
    );
    expect(result).toEqual({ kind: 'awaiting' });
    const req = standIn.requests.find((r) => r.url.includes('/functions/scorer/invocations'))!;
    expect(req.url).toContain('Qualifier=7');
    expect(req.headers.authorization).toContain('/eu-central-1/lambda/aws4_request');
    expect(JSON.parse(req.body)).toEqual(payload);
  });

  it('honours AWS_ENDPOINT_URL_ECS for RunTask', async () => {
    await dispatch(
      { lambda: new LambdaClient({}), ecs: new ECSClient({}), inProcess: builtinImplementations },
      { type: 'container_task', target: 'c/td:4' },
      payload,
    );
    const req = standIn.requests.find((r) => r.headers['x-amz-target'] === 'AmazonEC2ContainerServiceV20141113.RunTask')!;
    expect(JSON.parse(req.body)).toMatchObject({
      cluster: 'c',
      taskDefinition: 'td:4',
      overrides: { containerOverrides: [{ name: 'td' }] },
    });
    expect(req.headers.authorization).toContain('/eu-central-1/ecs/aws4_request');
  });
});
