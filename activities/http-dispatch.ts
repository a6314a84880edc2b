import { ApplicationFailure } from '@temporalio/activity';
import { postWebhook, type SendResult } from '../src/webhooks/sender';
import { signatureHeader } from '../src/webhooks/signature';
import type { TargetPolicy } from '../src/webhooks/target-policy';
import type { HttpHandler } from '../src/shapes';
import { DEPENDENCY_REJECTED, DEPENDENCY_UNAVAILABLE } from './classified';
import type { CompletionReport } from '../workflows/definitions';
import { storableText, unstorableError, unstorableReason } from '../src/domain/jobs';

/** Defaults of an `http` handler's time limits (HttpHandler in src/openapi/schemas/models.ts). */
export const HTTP_TIMEOUT_SECONDS = 30;
export const HTTP_CONNECT_TIMEOUT_SECONDS = 5;
/** Largest sync answer taken as a job's output. */
export const MAX_HTTP_ANSWER_BYTES = 1024 * 1024;

export interface HttpCall {
  policy: TargetPolicy;
  /** The model's handler secret; null (a model written before it had one) is refused, unsigned calls are never sent. */
  secret: string | null;
  outputProblem: (output: unknown) => string | undefined;
}

export type HttpDispatchResult = { kind: 'awaiting' } | { kind: 'completed'; report: CompletionReport };

/** The message of a refusing answer: the JSON `error.message` or `message` a server sends, else the text, cut short. */
function answerMessage(body: string | undefined): string {
  if (!body) return '';
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const text = typeof parsed.error === 'object' ? parsed.error?.message : (parsed.error ?? parsed.message ?? parsed.detail);
    if (typeof text === 'string') return storableText(text);
  } catch {
    // not JSON
  }
  return storableText(body);
}

const failure = (message: string): HttpDispatchResult => ({
  kind: 'completed',
  report: { status: 'failure', error: { message: storableText(message) } },
});

/** 5xx, 408, 429 and no answer at all may pass; the rest of 4xx is the server's final word. */
function retryable(result: SendResult): boolean {
  const status = result.statusCode;
  return status === undefined || status >= 500 || status === 408 || status === 429;
}

/** A sync answer: a JSON object is the output, checked against the handler contract's output_schema. */
function syncOutcome(body: string | undefined, call: HttpCall): HttpDispatchResult {
  let output: unknown;
  try {
    output = JSON.parse(body ?? '');
  } catch {
    return failure('the http handler answered a body that is not JSON; a sync handler answers the output as a JSON object');
  }
  if (!output || typeof output !== 'object' || Array.isArray(output)) {
    return failure('the http handler answered JSON that is not an object; a sync handler answers the output as a JSON object');
  }
  // Checked before the output_schema: the job's record could not hold it, whatever the contract says.
  const unstorable = unstorableReason(output);
  if (unstorable)
    return { kind: 'completed', report: { status: 'failure', error: unstorableError(`the http handler's answer: ${unstorable}`) } };
  const problem = call.outputProblem(output);
  if (problem) return failure(`the http handler's answer does not match the output_schema of its handler contract: ${problem}`);
  return { kind: 'completed', report: { status: 'success', output: output as Record<string, unknown> } };
}

/**
 * POSTs the dispatch payload to a model server, signed like an outbound webhook (the message id is the job id, the same
 * on every retry, so a server can deduplicate). Failures that may pass are thrown retryable; the rest complete the job.
 */
export async function callHttpHandler(handler: HttpHandler, payload: { job_id: string; traceparent?: string }, call: HttpCall) {
  if (!call.secret) {
    throw ApplicationFailure.create({
      message: 'the model has no http_handler_secret (set its handlers again to create one)',
      type: DEPENDENCY_REJECTED,
      nonRetryable: true,
    });
  }
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const result = await postWebhook(
    {
      url: handler.url,
      headers: {
        'content-type': 'application/json',
        'webhook-id': payload.job_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader([call.secret], payload.job_id, timestamp, body),
        ...(payload.traceparent ? { traceparent: payload.traceparent } : {}),
      },
      body,
    },
    {
      policy: call.policy,
      timeoutMs: (handler.timeout_seconds ?? HTTP_TIMEOUT_SECONDS) * 1000,
      connectTimeoutMs: (handler.connect_timeout_seconds ?? HTTP_CONNECT_TIMEOUT_SECONDS) * 1000,
      maxBodyBytes: MAX_HTTP_ANSWER_BYTES,
    },
  );
  const what = `http handler ${URL.canParse(handler.url) ? new URL(handler.url).host : 'url'}`;
  if (result.refused) {
    throw ApplicationFailure.create({ message: `${what} refused: ${result.error}`, type: DEPENDENCY_REJECTED, nonRetryable: true });
  }
  if (result.error && retryable(result)) {
    throw ApplicationFailure.create({ message: `${what} failed: ${result.error}`, type: DEPENDENCY_UNAVAILABLE });
  }
  if (result.error) {
    const detail = answerMessage(result.body);
    return failure(`${what} ${result.error}${detail ? `: ${detail}` : ''}`);
  }
  return handler.mode === 'async' ? ({ kind: 'awaiting' } as const) : syncOutcome(result.body, call);
}
