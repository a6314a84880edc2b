/** What an in-process implementation receives; it returns the job's output or throws to fail the job. */
export interface InProcessJob {
  jobId: string;
  jobType: 'inference' | 'training';
  modelId: string;
  modelVersion: string;
  input: Record<string, unknown>;
  triggerOutput?: Record<string, unknown>;
}

/** Returned by an implementation that leaves the report to someone else, through the completion route. */
export const AWAIT_COMPLETION_REPORT = Symbol('await completion report');

export type InProcessImplementation = (job: InProcessJob) => Promise<Record<string, unknown> | typeof AWAIT_COMPLETION_REPORT>;
export type InProcessRegistry = Record<string, InProcessImplementation>;

/** Built-ins, so the whole job path can be tried without AWS. */
export const builtinImplementations: InProcessRegistry = {
  /** Returns the job's input as its output. */
  echo: async (job) => ({ ...job.input }),
  /** Fails every job with the input's `message`: for trying failure paths and cascades' error handling. */
  fail: async (job) => {
    throw new Error(typeof job.input.message === 'string' ? job.input.message : 'the fail implementation always fails');
  },
  /** Does nothing and waits for a report on the completion route, like a Lambda would: for trying that route by hand. */
  manual: async () => AWAIT_COMPLETION_REPORT,
  /** Sums `values` (an array of numbers), a minimal "model" with a typed contract. */
  sum: async (job) => {
    const values = job.input.values;
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'number')) throw new Error('input.values must be an array of numbers');
    return { sum: (values as number[]).reduce((a, b) => a + b, 0) };
  },
};
