import { NativeConnection, Worker, Runtime, DefaultLogger, WorkerOptions } from '@temporalio/worker';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { ECSClient } from '@aws-sdk/client-ecs';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Client } from '@temporalio/client';
import { createActivities } from '../../activities';
import type { InProcessRegistry } from '../../activities/in-process/registry';
import { UserSchemaCompiler } from '../domain/json-schemas';
import { jobLauncherFor } from './job-launcher';
import { ensureSearchAttributes } from './search-attributes';
import type { Config } from '../config';

export interface WorkerDeps {
  config: Config;
  knex: Knex;
  client: Client;
  log: Logger;
  inProcess: InProcessRegistry;
  lambda?: LambdaClient;
  ecs?: ECSClient;
  /** A prebuilt workflow bundle (tests build one per run); bundled from workflows/ when omitted. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Level of the SDK's own log (worker and activity failures); set once per process. */
  sdkLogLevel?: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
}

let runtimeInstalled = false;

/** The job worker: workflows/ plus the activities closing over the given dependencies. */
export async function createJobWorker(deps: WorkerDeps): Promise<{ worker: Worker; connection: NativeConnection }> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    try {
      Runtime.install({ logger: new DefaultLogger(deps.sdkLogLevel ?? 'WARN') });
    } catch {
      // already installed by the host process
    }
  }
  const { config } = deps;
  const connection = await NativeConnection.connect({ address: config.temporal.address! });
  // Workflows write these attributes; starting them in a namespace without them fails every job.
  try {
    const { registered } = await ensureSearchAttributes(connection, config.temporal.namespace);
    if (registered.length) deps.log.info({ namespace: config.temporal.namespace, registered }, 'registered the job search attributes');
  } catch (err) {
    await connection.close();
    throw err;
  }
  const launcher = jobLauncherFor(deps.client, config);
  const activities = createActivities({
    knex: deps.knex,
    schemas: new UserSchemaCompiler(),
    launcher,
    clients: { lambda: deps.lambda ?? new LambdaClient({}), ecs: deps.ecs ?? new ECSClient({}), inProcess: deps.inProcess },
    log: deps.log,
    publicBaseUrl: config.publicBaseUrl,
    maxCascadeDepth: config.jobs.maxCascadeDepth,
  });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: require.resolve('../../workflows') }),
  });
  return { worker, connection };
}
