/**
 * Dynamic configuration the embedded Temporal servers run with (the dev server and the production-shaped one;
 * docker/temporal/dynamic-config.yaml says the same for docker-compose). Why, and how it was measured:
 * docs/temporal.md, "Server tuning".
 *
 * `history.transferProcessorMaxPollRPS` (Temporal's default: 20 per shard) caps how often a history shard reads
 * its transfer queue, the queue every activity task and every workflow task after an activity passes through.
 * A job's steps arrive one at a time, so each read finds one task: at the default a chain of activities advances
 * at most ten steps a second per shard (100 ms per activity on a quiet shard), whatever the worker does.
 */
export const SERVER_DYNAMIC_CONFIG: Record<string, number> = {
  'history.transferProcessorMaxPollRPS': 1000,
};

/** The same settings as a Temporal dynamic-config YAML file. */
export function dynamicConfigYaml(): string {
  return Object.entries(SERVER_DYNAMIC_CONFIG)
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}\n`)
    .join('');
}

/** The same settings as `temporal server start-dev` arguments. */
export function devServerArgs(): string[] {
  return Object.entries(SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]);
}
