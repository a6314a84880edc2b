import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { ECSClient } from '@aws-sdk/client-ecs';
import pino from 'pino';
import type { Knex } from 'knex';
import { createActivities } from '../../../activities';
import { createJobRuns } from '../../../src/domain/jobs/run/job-runs';
import { DEPENDENCY_UNAVAILABLE } from '../../../activities/classified';
import { builtinImplementations } from '../../../activities/in-process/registry';
import { createKnex } from '../../../src/db/knex';
import { UserSchemaCompiler } from '../../../src/domain/common/json-schemas';
import type { JobGateway } from '../../../src/domain/ports/job-gateway.port';
import { testSecretBox } from '../../helpers/secret-keys';
import { createOutbox } from '../../../src/domain/webhooks';
import { MemoryOutboxStore } from '../../helpers/memory-stores';

/**
 * The job workflow's activities in the SDK's MockActivityEnvironment, against a Postgres that does not answer (a
 * closed port): what Temporal is told when the worker's database is down, without a worker or a server.
 */
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

const gateway: JobGateway = {
  launch: async () => 'started',
  readiness: async () => ({ ok: true }),
  ping: async () => undefined,
  complete: async () => ({ kind: 'conflict', message: 'not in this test' }),
  cancel: async () => 'closed',
  uiUrl: () => null,
  closedUnfinished: async () => [],
  awaitClosed: async () => 'closed',
};

describe('job activities while Postgres is unreachable', () => {
  let knex: Knex;
  let activities: ReturnType<typeof createActivities>;
  beforeAll(() => {
    knex = createKnex('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    const log = pino({ level: 'silent' });
    const runs = createJobRuns({
      outbox: createOutbox(() => new MemoryOutboxStore()),
      knex,
      schemas: new UserSchemaCompiler(),
      gateway,
      log,
      maxCascadeDepth: 5,
      secrets: testSecretBox,
    });
    activities = createActivities({
      knex,
      runs,
      gateway,
      clients: {
        lambda: new LambdaClient({ region: 'eu-west-1' }),
        ecs: new ECSClient({ region: 'eu-west-1' }),
        inProcess: builtinImplementations,
      },
      log,
      publicBaseUrl: 'http://127.0.0.1:9',
    });
  });
  afterAll(() => knex.destroy());

  const env = () => new MockActivityEnvironment({ attempt: 1 }, { logger: quiet });

  it('fails the dispatch as a retryable Postgres outage, so the workflow waits it out', async () => {
    const failure = await env()
      .run(() => activities.dispatchJob('job-1'))
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: DEPENDENCY_UNAVAILABLE, nonRetryable: false });
    expect((failure as Error).message).toMatch(/^Postgres unavailable/);
  });

  it('refuses for good a claim that names no workflow run, before it reaches the database', async () => {
    const failure = await new MockActivityEnvironment({ workflowExecution: { workflowId: 'job-1', runId: '' } }, { logger: quiet })
      .run(() => activities.startJob('job-1'))
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({ nonRetryable: true, message: 'startJob runs only inside a job workflow' });
  });
});
