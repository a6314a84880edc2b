/** What the service sends every handler (its OpenAPI document: `components.schemas.DispatchPayload`). */
export interface Job {
  job_id: string;
  job_type: 'inference' | 'training';
  model_id: string;
  model_version: string;
  input: Record<string, unknown>;
  trigger_output?: Record<string, unknown>;
  completion: { method: 'POST'; path: string; url: string; token?: string };
  traceparent?: string;
}

/** The payload is not a job of the service: nothing to run and nowhere to report. */
export class InvalidPayload extends Error {
  override name = 'InvalidPayload';
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks the fields the kit relies on and returns the payload as a Job; throws InvalidPayload naming the first bad field. */
export function parseJob(payload: unknown): Job {
  const raw = typeof payload === 'string' ? safeJson(payload) : payload;
  if (!isObject(raw)) throw new InvalidPayload('the payload must be a JSON object');
  for (const field of ['job_id', 'model_id', 'model_version'] as const) {
    if (typeof raw[field] !== 'string' || !raw[field]) throw new InvalidPayload(`${field} must be a non-empty string`);
  }
  if (raw.job_type !== 'inference' && raw.job_type !== 'training') throw new InvalidPayload('job_type must be inference or training');
  if (!isObject(raw.input)) throw new InvalidPayload('input must be an object');
  if (raw.trigger_output !== undefined && !isObject(raw.trigger_output)) throw new InvalidPayload('trigger_output must be an object');
  const completion = raw.completion;
  if (!isObject(completion) || typeof completion.url !== 'string' || !URL.canParse(completion.url)) {
    throw new InvalidPayload('completion.url must be an absolute URL');
  }
  if (completion.token !== undefined && typeof completion.token !== 'string') throw new InvalidPayload('completion.token must be a string');
  if (raw.traceparent !== undefined && typeof raw.traceparent !== 'string') throw new InvalidPayload('traceparent must be a string');
  return raw as unknown as Job;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidPayload('the payload is not JSON');
  }
}
