/**
 * Dynamic configuration the embedded Temporal servers run with (the dev server and the production-shaped one;
 * docker/temporal/dynamic-config.yaml says the same for docker-compose). Why, and how it was measured:
 * docs/temporal.md, "Server tuning", and docs/fairness.md.
 *
 * `history.transferProcessorMaxPollRPS` (Temporal's default: 20 per shard) caps how often a history shard reads
 * its transfer queue, the queue every activity task and every workflow task after an activity passes through.
 * A job's steps arrive one at a time, so each read finds one task: at the default a chain of activities advances
 * at most ten steps a second per shard (100 ms per activity on a quiet shard), whatever the worker does.
 *
 * `matching.useNewMatcher` and `matching.enableFairness` (both off by default in server 1.29) turn on task-queue
 * priority and fairness: the matching service keeps one backlog per priority key and, within it, dispatches the
 * fairness keys (the job's tenant) in proportion to their weights instead of first come, first served.
 */
export const SERVER_DYNAMIC_CONFIG: Record<string, number | boolean> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'matching.useNewMatcher': true,
  'matching.enableFairness': true,
};

/** The settings with fairness and priority off: the matcher of Temporal's default configuration (for comparisons). */
export const WITHOUT_FAIRNESS: Record<string, number | boolean> = {
  ...SERVER_DYNAMIC_CONFIG,
  'matching.useNewMatcher': false,
  'matching.enableFairness': false,
};

/** A value for the whole server, or values for named task queues first and the rest after (the file form only). */
export type DynamicValue = number | boolean | { value: number | boolean; taskQueue?: string }[];

/** The settings with fairness and priority off on one task queue only (comparisons on one server; file form). */
export function withoutFairnessOn(taskQueue: string): Record<string, DynamicValue> {
  const off = [{ value: false, taskQueue }, { value: true }];
  return { ...SERVER_DYNAMIC_CONFIG, 'matching.useNewMatcher': off, 'matching.enableFairness': off };
}

/** The same settings as a Temporal dynamic-config YAML file. */
export function dynamicConfigYaml(settings: Record<string, DynamicValue> = SERVER_DYNAMIC_CONFIG): string {
  const entry = ({ value, taskQueue }: { value: number | boolean; taskQueue?: string }) =>
    `  - value: ${JSON.stringify(value)}\n${taskQueue ? `    constraints:\n      taskQueueName: ${JSON.stringify(taskQueue)}\n` : ''}`;
  return Object.entries(settings)
    .map(([key, value]) => `${key}:\n${(Array.isArray(value) ? value : [{ value }]).map(entry).join('')}`)
    .join('');
}

/** The same settings as `temporal server start-dev` arguments. */
export function devServerArgs(settings = SERVER_DYNAMIC_CONFIG): string[] {
  return Object.entries(settings).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]);
}
