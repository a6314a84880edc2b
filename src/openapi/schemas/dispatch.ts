import { described, id, obj } from './common';

/** What the service sends handlers (activities/dispatch.ts `DispatchPayload`), described in the document's `webhooks`. */
export const dispatchSchemas: Record<string, object> = {
  DispatchPayload: {
    type: 'object',
    description: 'The job a handler runs and how it reports back; the same for every handler kind',
    required: ['job_id', 'job_type', 'model_id', 'model_version', 'input', 'completion'],
    properties: {
      job_id: described('The job; deduplicate by it (Lambda delivers at least once)', { type: 'string', format: 'uuid' }),
      job_type: { enum: ['inference', 'training'] },
      model_id: id,
      model_version: id,
      input: described('The job input (checked against the input_schema of the handler contract)', obj),
      trigger_output: described('For a cascade job: the output of the job that triggered it', obj),
      completion: {
        type: 'object',
        description: 'Where to report: POST a CompleteJobRequest to `url` with `Authorization: Bearer <token>`',
        required: ['method', 'path', 'url'],
        properties: {
          method: { const: 'POST' },
          path: described('The completion route of this job', { type: 'string' }),
          url: described('The same, absolute (PUBLIC_BASE_URL)', { type: 'string', format: 'uri' }),
          token: described(
            'A job token: completes this job and nothing else, until the job deadline (docs/authorization.md, "Job tokens"); absent when JOB_TOKEN_KEYS is unset',
            { type: 'string' },
          ),
        },
      },
      traceparent: described('W3C trace context of the dispatch: send it back as the `traceparent` header of the completion', {
        type: 'string',
      }),
    },
  },
  ContainerTaskEnvironment: {
    type: 'object',
    description: 'The environment variables a `container_task` handler receives (ECS container overrides)',
    required: ['MOS_JOB', 'MOS_JOB_ID', 'MOS_COMPLETION_URL'],
    properties: {
      MOS_JOB: described('The DispatchPayload, as JSON text', { type: 'string' }),
      MOS_JOB_ID: { type: 'string', format: 'uuid' },
      MOS_COMPLETION_URL: { type: 'string', format: 'uri' },
      MOS_JOB_TOKEN: described("The job token (the payload's completion.token)", { type: 'string' }),
      TRACEPARENT: described('W3C trace context, the name OpenTelemetry environment carriers read', { type: 'string' }),
    },
  },
};

const EXAMPLE_JOB = {
  job_id: '019a4b3c-2d1e-7f00-8a9b-0c1d2e3f4a5b',
  job_type: 'inference',
  model_id: 'scorer',
  model_version: '1',
  input: { seats: 180, cabin: 'economy' },
  completion: {
    method: 'POST',
    path: '/v2/models/scorer/versions/1/jobs/019a4b3c-2d1e-7f00-8a9b-0c1d2e3f4a5b/complete',
    url: 'https://mos.example.com/v2/models/scorer/versions/1/jobs/019a4b3c-2d1e-7f00-8a9b-0c1d2e3f4a5b/complete',
    token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6Im1vcy1qb2Irand0Iiwia2lkIjoiazEifQ.eyJqb2JfaWQiOiIwMTlhNGIzYy0uLi4ifQ.c2lnbmF0dXJl',
  },
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};

const jsonBody = (schema: string, example: unknown) => ({
  required: true,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, example } },
});

/**
 * The OpenAPI 3.1 `webhooks` section: the calls the service makes to handlers, one per handler kind that receives
 * the job from the service (in-process handlers receive it as a function argument).
 */
export const dispatchCalls = {
  lambdaInvoke: {
    post: {
      operationId: 'lambdaInvoke',
      summary: 'Lambda handler: the event of an asynchronous Invoke (InvocationType Event)',
      description:
        'Delivered at least once: deduplicate by `job_id`. Report through `completion.url` with `completion.token` (503 with Retry-After while the service is unavailable: retry).',
      requestBody: jsonBody('DispatchPayload', EXAMPLE_JOB),
      responses: { '202': { description: 'Lambda accepted the event' } },
    },
  },
  containerTaskRun: {
    post: {
      operationId: 'containerTaskRun',
      summary: 'Container-task handler: the environment of the ECS task RunTask starts',
      description:
        'Not an HTTP call: the variables of the container override, shown as a JSON object. One task per job (the RunTask client token is the job id).',
      requestBody: jsonBody('ContainerTaskEnvironment', {
        MOS_JOB: JSON.stringify(EXAMPLE_JOB),
        MOS_JOB_ID: EXAMPLE_JOB.job_id,
        MOS_COMPLETION_URL: EXAMPLE_JOB.completion.url,
        MOS_JOB_TOKEN: EXAMPLE_JOB.completion.token,
        TRACEPARENT: EXAMPLE_JOB.traceparent,
      }),
      responses: { '200': { description: 'The task started' } },
    },
  },
  httpHandlerCall: {
    post: {
      operationId: 'httpHandlerCall',
      summary: "`http` handler: the POST to the handler's url",
      description:
        "Signed like outbound webhooks (Standard Webhooks): `webhook-id` is the job id (the same on every retry), `webhook-signature` is `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the model's `http_handler_secret`. `sync` handlers answer the output; `async` handlers answer 2xx and report later through `completion.url` with `completion.token`.",
      parameters: [
        { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, example: EXAMPLE_JOB.job_id },
        { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' }, example: '1796300000' },
        {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          schema: { type: 'string' },
          example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
        },
      ],
      requestBody: jsonBody('DispatchPayload', EXAMPLE_JOB),
      responses: {
        '200': {
          description:
            "`sync`: the job's output, a JSON object (checked against the output_schema; a mismatch fails the job). `async`: any body, ignored",
          content: { 'application/json': { schema: { type: 'object' }, example: { score: 0.64, model: 'stand-in' } } },
        },
        '202': { description: '`async`: the job is accepted; it is completed through the completion route' },
        '4XX': { description: "The job fails with the answer's `message` (or `error.message`); not retried (408 and 429 are)" },
        '5XX': { description: 'Retried with backoff until the job deadline, as are time-outs and connection errors' },
      },
    },
  },
};
