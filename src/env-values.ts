/** A setting read from the environment is missing or malformed; the message names the variable. */
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

/** A whole number of at least `min`, or `fallback` when the variable is unset or empty. */
export function integer(env: Env, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/** A number of at least 0 (0 turns a rate off), or `fallback` when the variable is unset or empty. */
export function decimal(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value)) throw new ConfigError(`${name} must be a number >= 0, got "${raw}"`);
  return value;
}

/** The trimmed, non-empty items of a comma-separated setting (none when unset). */
export function commaSeparated(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}
