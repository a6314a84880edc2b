import { LambdaClient } from '@aws-sdk/client-lambda';
import { InMemorySpanExporter, SimpleSpanProcessor, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing } from '../../../src/observability/tracing';
import { Harness } from '../../helpers/harness';
import { activeModel, eventually } from '../../helpers/fixtures';
import { AwsStandIn, TEST_AWS } from '../../helpers/aws-stand-in';
import { patchModulesForJest } from '../../helpers/tracing';

/** One line per span, children indented under their parent; links shown as "linked to <trace>/<span name>". */
function renderTree(spans: ReadableSpan[], all: ReadableSpan[]): string {
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const span of [...spans].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    byParent.set(parent, [...(byParent.get(parent) ?? []), span]);
  }
  const name = (spanId: string) => all.find((s) => s.spanContext().spanId === spanId)?.name ?? spanId;
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of byParent.get(parent) ?? []) {
      const links = span.links.map((l) => ` [linked to ${l.context.traceId.slice(0, 8)}…/${name(l.context.spanId)}]`).join('');
      lines.push(`${'  '.repeat(depth)}${span.name}${links}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

describe('one trace per job', () => {
  const memory = new InMemorySpanExporter();
  // Before the harness builds its server, client and worker: the HTTP instrumentation and the Temporal interceptors.
  const tracing = startTracing({ serviceName: 'model-orchestration-test', spanProcessor: new SimpleSpanProcessor(memory) });
  let h: Harness;
  let lambda: AwsStandIn;

  beforeAll(async () => {
    patchModulesForJest(tracing);
    lambda = await AwsStandIn.start(() => ({ status: 202 }));
    h = await Harness.start({ worker: true, tracing, lambda: new LambdaClient({ ...TEST_AWS, endpoint: lambda.url }) });
  });
  afterAll(async () => {
    await h?.stop();
    await lambda?.stop();
    await tracing.shutdown();
  });

  it('follows the start request, the workflow, the dispatch and the completion in one trace, and links the cascade job', async () => {
    const fn = 'arn:aws:lambda:eu-west-1:123456789012:function:traced';
    const source = await activeModel(h, { handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } } });
    const target = await activeModel(h);
    expect(
      (
        await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
          body: {
            trigger_event: 'inference_complete',
            target_model_id: target,
            target_action: 'inference',
            input_source: 'trigger_output',
            label: 'traced',
          },
        })
      ).status,
    ).toBe(201);

    // The caller's trace: the API continues it.
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const started = await h.api('POST', `/v2/models/${source}/versions/1/infer`, {
      body: { input: {} },
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    expect(started.status).toBe(202);

    // The handler (the Lambda stand-in) gets the dispatch's trace context and sends it back with its report.
    const invoke = await eventually(async () => lambda.requests.find((r) => r.body.includes(started.body.job_id)), 20000, 'the dispatch');
    const payload = JSON.parse(invoke.body);
    expect(payload.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const completed = await h.api('POST', `/v2/models/${source}/versions/1/jobs/${started.body.job_id}/complete`, {
      body: { status: 'success', output: { score: 1 } },
      headers: { traceparent: payload.traceparent },
    });
    expect(completed.status).toBe(200);
    const cascadeJob = completed.body.triggered_events[0].job_id;
    await eventually(
      async () => (await h.api('GET', `/v2/models/${target}/versions/1/jobs/${cascadeJob}`)).body.status === 'success',
      20000,
      'the cascade job',
    );

    const spans = await eventually(
      async () => {
        const all = memory.getFinishedSpans();
        // The cascade workflow's own run span arrives when that workflow closes.
        return all.filter((s) => s.name === 'RunWorkflow:modelJobWorkflow').length >= 2 && all;
      },
      10000,
      'the workflow spans',
    );
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const one = (name: string) => {
      const found = inTrace.filter((s) => s.name === name);
      expect([name, found.length]).toEqual([name, 1]);
      return found[0];
    };
    const parentOf = (span: ReadableSpan) => inTrace.find((s) => s.spanContext().spanId === span.parentSpanId);
    // Koa's router spans may sit between a request and what its handler does.
    const descends = (span: ReadableSpan, ancestor: ReadableSpan): boolean => {
      const parent = parentOf(span);
      return parent !== undefined && (parent === ancestor || descends(parent, ancestor));
    };

    const request = one('POST /v2/models/{model_id}/versions/{model_version}/infer');
    expect(request.parentSpanId).toBe(callerSpan);
    expect(request.attributes['http.route']).toBe('/v2/models/{model_id}/versions/{model_version}/infer');
    const start = one('StartWorkflow:modelJobWorkflow');
    expect(descends(start, request)).toBe(true);
    const run = one('RunWorkflow:modelJobWorkflow');
    expect(parentOf(run)).toBe(start);
    const dispatch = one('RunActivity:dispatchJob');
    expect(descends(dispatch, run)).toBe(true);
    const completion = one('POST /v2/models/{model_id}/versions/{model_version}/jobs/{model_job_id}/complete');
    expect(payload.traceparent).toContain(dispatch.spanContext().spanId);
    expect(parentOf(completion)).toBe(dispatch);
    const update = one('StartWorkflowUpdate:completeJob');
    expect(descends(update, completion)).toBe(true);
    expect(descends(one('HandleUpdate:completeJob'), update)).toBe(true);
    const fire = one('RunActivity:launchJobs');

    // The cascade job has a trace of its own, linked to the activity that fired it.
    const cascadeRoot = spans.find((s) =>
      s.links.some((l) => l.context.traceId === traceId && l.context.spanId === fire.spanContext().spanId),
    );
    expect(cascadeRoot?.name).toBe(`cascade job ${target}@1`);
    const cascadeTrace = spans.filter((s) => s.spanContext().traceId === cascadeRoot!.spanContext().traceId);
    expect(cascadeTrace.map((s) => s.name)).toEqual(
      expect.arrayContaining(['StartWorkflow:modelJobWorkflow', 'RunWorkflow:modelJobWorkflow', 'RunActivity:dispatchJob']),
    );
    expect(cascadeRoot!.spanContext().traceId).not.toBe(traceId);

    if (process.env.MOS_PRINT_TRACE) {
      console.log(
        `trace ${traceId}\n${renderTree(inTrace, spans)}\n\ntrace ${cascadeRoot!.spanContext().traceId}\n${renderTree(cascadeTrace, spans)}`,
      );
    }
  });
});
