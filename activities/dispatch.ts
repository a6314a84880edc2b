import { LambdaClient, InvokeCommand } from '@aws-sdk/client-lambda';
import { ECSClient, RunTaskCommand, StopTaskCommand } from '@aws-sdk/client-ecs';
import { ApplicationFailure } from '@temporalio/activity';
import { AWAIT_COMPLETION_REPORT, InProcessRegistry } from './in-process/registry';
import { classifyFailure } from '../src/failure-classes';
import { workflowIdFor } from '../src/domain/ports';
import { toActivityFailure, DEPENDENCY_REJECTED, DEPENDENCY_UNAVAILABLE } from './classified';
import type { CompletionReport } from '../workflows/definitions';
import type { Handler } from '../src/shapes';
import { targetPolicy, type TargetPolicy } from '../src/webhooks/target-policy';
import { callHttpHandler, type HttpCall } from './http-dispatch';
import type { Schemas } from '../src/openapi/types';
import { storableText, unstorableError, unstorableReason } from '../src/domain/jobs';

const STRICT_POLICY = targetPolicy({ allowHttp: false, allowedPrivateRanges: [] });

/** What every handler receives: enough to do the work and to report back (the document's `DispatchPayload`). */
export type DispatchPayload = Schemas['DispatchPayload'];

export type { Handler };

/** `taskArn`: the ECS task a container-task dispatch started (absent in histories recorded before it existed). */
export type DispatchResult = { kind: 'awaiting'; taskArn?: string } | { kind: 'completed'; report: CompletionReport };

export interface DispatchClients {
  lambda: LambdaClient;
  ecs: ECSClient;
  inProcess: InProcessRegistry;
  /** What `http` handlers may target: the outbound webhooks' policy (public https targets only when unset). */
  httpPolicy?: TargetPolicy;
}

/** Names the AWS call in the failure; whether it is retried is decided by the one classifier. */
function awsFailure(err: unknown, what: string): Error {
  const { name, message: detail } = err instanceof Error ? err : { name: 'Error', message: String(err) };
  const message = `${what} failed: ${name}: ${detail}`;
  const failure = classifyFailure(err, 'AWS');
  if (failure.kind === 'permanent') return ApplicationFailure.create({ message, type: DEPENDENCY_REJECTED, nonRetryable: true });
  if (failure.kind === 'outage') return ApplicationFailure.create({ message, type: DEPENDENCY_UNAVAILABLE });
  return toActivityFailure(err, 'AWS');
}

/** ECS reports capacity shortfalls per task; those pass, a missing task definition or cluster does not. */
function runTaskFailure(reason: string, detail: string): Error {
  const message = `ECS RunTask failed: ${reason} ${detail}`.trim();
  return /^(RESOURCE|AGENT|Capacity)/i.test(reason)
    ? ApplicationFailure.create({ message, type: DEPENDENCY_UNAVAILABLE })
    : ApplicationFailure.create({ message, type: DEPENDENCY_REJECTED, nonRetryable: true });
}

async function invokeLambda(
  client: LambdaClient,
  handler: Extract<Handler, { type: 'lambda' }>,
  payload: DispatchPayload,
): Promise<DispatchResult> {
  let response;
  try {
    response = await client.send(
      new InvokeCommand({
        FunctionName: handler.arn,
        Qualifier: handler.version,
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify(payload)),
      }),
    );
  } catch (err) {
    throw awsFailure(err, 'Lambda Invoke');
  }
  if (response.StatusCode !== 202) {
    throw ApplicationFailure.create({ message: `Lambda Invoke answered status ${response.StatusCode}`, type: DEPENDENCY_UNAVAILABLE });
  }
  return { kind: 'awaiting' };
}

async function runTask(
  client: ECSClient,
  handler: Extract<Handler, { type: 'container_task' }>,
  payload: DispatchPayload,
): Promise<DispatchResult> {
  const [cluster, taskDefinition] = handler.target.split('/');
  const launch = handler.launch ?? {};
  const containerName = launch.container_name ?? taskDefinition.split(':')[0];
  let response;
  try {
    response = await client.send(
      new RunTaskCommand({
        cluster,
        taskDefinition,
        count: 1,
        // ECS's startedBy takes 36 characters: the workflow id's start, enough to find the task by job.
        startedBy: workflowIdFor(payload.job_id).slice(0, 36),
        // ECS runs one task per client token, so a dispatch retried after a lost answer starts no second task.
        clientToken: payload.job_id,
        ...(launch.launch_type ? { launchType: launch.launch_type } : {}),
        ...(launch.subnets?.length
          ? {
              networkConfiguration: {
                awsvpcConfiguration: {
                  subnets: launch.subnets,
                  securityGroups: launch.security_groups,
                  assignPublicIp: launch.assign_public_ip ? 'ENABLED' : 'DISABLED',
                },
              },
            }
          : {}),
        overrides: {
          containerOverrides: [
            {
              name: containerName,
              environment: [
                { name: 'MOS_JOB', value: JSON.stringify(payload) },
                { name: 'MOS_JOB_ID', value: payload.job_id },
                { name: 'MOS_COMPLETION_URL', value: payload.completion.url },
                ...(payload.completion.token ? [{ name: 'MOS_JOB_TOKEN', value: payload.completion.token }] : []),
                // The name OpenTelemetry's environment-variable carrier reads.
                ...(payload.traceparent ? [{ name: 'TRACEPARENT', value: payload.traceparent }] : []),
              ],
            },
          ],
        },
      }),
    );
  } catch (err) {
    throw awsFailure(err, 'ECS RunTask');
  }
  if (response.failures?.length) {
    const f = response.failures[0];
    throw runTaskFailure(f.reason ?? 'unknown', f.detail ?? '');
  }
  const taskArn = response.tasks?.[0]?.taskArn;
  return taskArn ? { kind: 'awaiting', taskArn } : { kind: 'awaiting' };
}

/** Stops the ECS task of a cancelled job (the task's cluster is the handler's). A task already stopped is not an error. */
export async function stopTask(client: ECSClient, handler: Handler, taskArn: string, reason: string): Promise<void> {
  if (handler.type !== 'container_task') return;
  const [cluster] = handler.target.split('/');
  try {
    await client.send(new StopTaskCommand({ cluster, task: taskArn, reason: reason.slice(0, 255) }));
  } catch (err) {
    if ((err as { name?: string }).name === 'InvalidParameterException') return; // the task is gone already
    throw awsFailure(err, 'ECS StopTask');
  }
}

async function runInProcess(
  registry: InProcessRegistry,
  handler: Extract<Handler, { type: 'in_process' }>,
  payload: DispatchPayload,
): Promise<DispatchResult> {
  const implementation = registry[handler.name];
  if (!implementation) {
    throw ApplicationFailure.create({
      message: `no in-process implementation named ${handler.name}`,
      type: DEPENDENCY_REJECTED,
      nonRetryable: true,
    });
  }
  try {
    const output = await implementation({
      jobId: payload.job_id,
      jobType: payload.job_type,
      modelId: payload.model_id,
      modelVersion: payload.model_version,
      input: payload.input,
      triggerOutput: payload.trigger_output,
    });
    if (output === AWAIT_COMPLETION_REPORT) return { kind: 'awaiting' };
    // Checked here, before the output travels through Temporal as this activity's result and into the job's record.
    const unstorable = unstorableReason(output ?? {});
    if (unstorable) return { kind: 'completed', report: { status: 'failure', error: unstorableError(unstorable) } };
    return { kind: 'completed', report: { status: 'success', output: output ?? {} } };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { kind: 'completed', report: { status: 'failure', error: { message: storableText(message) } } };
  }
}

/**
 * Invokes a handler of any kind. Lambda, ECS and async `http` handlers return at once and report through the completion
 * route; a sync `http` handler's answer is the report. `http`: the model's secret and output check (DispatchOrder.http).
 */
export async function dispatch(
  clients: DispatchClients,
  handler: Handler,
  payload: DispatchPayload,
  http?: Omit<HttpCall, 'policy'>,
): Promise<DispatchResult> {
  switch (handler.type) {
    case 'http':
      return callHttpHandler(handler, payload, {
        secret: null,
        outputProblem: () => undefined,
        ...http,
        policy: clients.httpPolicy ?? STRICT_POLICY,
      });
    case 'lambda':
      return invokeLambda(clients.lambda, handler, payload);
    case 'container_task':
      return runTask(clients.ecs, handler, payload);
    case 'in_process':
      return runInProcess(clients.inProcess, handler, payload);
    default:
      throw ApplicationFailure.create({ message: `unknown handler type ${(handler as { type: string }).type}`, nonRetryable: true });
  }
}
