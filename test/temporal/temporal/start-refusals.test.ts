import { Client } from '@temporalio/client';
import Long from 'long';
import { TemporalConnection } from '../../../src/temporal/connection';
import { createJobGateway } from '../../../src/temporal/job-gateway';
import { ensureSearchAttributes } from '../../../src/temporal/search-attributes';
import { WorkflowStartRefused, workflowIdFor } from '../../../src/domain/ports/job-gateway.port';
import type { JobView } from '../../../src/db/jobs.repository';
import { JOB_SEARCH_ATTRIBUTES, JOB_TRIGGER } from '../../../workflows/search-attributes';
import { eventually } from '../../helpers/fixtures';
import { jobView } from '../../helpers/memory-stores';
import { uid } from '../../helpers/harness';
import { testEnv } from '../../helpers/test-env';

const job = (): JobView => jobView({ job_id: uid('job'), model_id: 'refusals', client_id: uid('tenant') });

async function servedNamespace(connection: TemporalConnection): Promise<string> {
  const namespace = uid('ns');
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(86400) } });
  await eventually(
    () =>
      connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 }).then(
        () => true,
        () => false,
      ),
    30000,
    'the namespace to be served',
  );
  return namespace;
}

describe('a workflow start Temporal answers INVALID_ARGUMENT about a search attribute', () => {
  let connection: TemporalConnection;
  beforeAll(async () => {
    connection = await TemporalConnection.open({ address: testEnv.temporalAddress });
  });
  afterAll(() => connection.close());

  it('is left for a retry, not refused, while the namespace lacks the attribute, naming it and the command that adds it', async () => {
    const namespace = await servedNamespace(connection);
    await ensureSearchAttributes(connection, namespace, { register: true, wanted: JOB_SEARCH_ATTRIBUTES.filter((k) => k !== JOB_TRIGGER) });
    const client = new Client({ connection, namespace });
    const gateway = createJobGateway({ client, taskQueue: uid('no-worker'), namespace, completionDeadlineSeconds: 60 });

    // The frontend may still be catching up with the other attributes' registration: the answer settles on JobTrigger.
    let failure: unknown;
    await eventually(
      async () => {
        failure = await gateway.launch(job()).then(
          () => undefined,
          (err: unknown) => err,
        );
        return failure instanceof Error && /lacks the job search attributes JobTrigger \(Keyword\)/.test(failure.message);
      },
      30000,
      'the start to wait naming JobTrigger',
    );
    expect(failure).not.toBeInstanceOf(WorkflowStartRefused);
    expect((failure as Error).message).toContain(
      `temporal operator search-attribute create --namespace ${namespace} --name JobTrigger --type Keyword`,
    );
  });

  it('is left for a retry, not refused, when every attribute is registered (the frontend cache lags a registration)', async () => {
    const client = new Client({ connection, namespace: 'default' });
    const gateway = createJobGateway({ client, taskQueue: uid('no-worker'), namespace: 'default', completionDeadlineSeconds: 60 });
    // What the client throws in the seconds after a registration, before the frontend's namespace cache refreshes
    // (the shape the first test meets for real: the SDK's error, with the server's answer as its cause).
    const answer = Object.assign(
      new Error('3 INVALID_ARGUMENT: Namespace default has no mapping defined for search attribute JobTrigger'),
      {
        code: 3,
        details: 'Namespace default has no mapping defined for search attribute JobTrigger',
      },
    );
    const lagging = new Error('Failed to start Workflow', { cause: answer });
    jest.spyOn(client.workflow, 'start').mockRejectedValueOnce(lagging);
    const first = job();

    const failure = await gateway.launch(first).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(WorkflowStartRefused);
    expect((failure as Error).message).toContain('has not yet seen the registered job search attributes');

    // The retry (the reconciler's next pass) starts it.
    await expect(gateway.launch(first)).resolves.toBe('started');
    await client.workflow.getHandle(workflowIdFor(first.job_id)).terminate('test done');
  });
});
