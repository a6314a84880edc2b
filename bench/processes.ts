import { spawn, ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { projectRoot } from '../src/paths';

/** One key for every process a benchmark starts, so a worker opens the webhook secrets an API sealed. */
export const BENCH_SECRET_KEYS = `bench=${randomBytes(32).toString('base64')}`;

/** A compiled production entry (`main.js`, `worker.js` of src/bin/) as a child process; its stderr goes to ours, prefixed by `name`. */
export function startProcess(script: string, env: NodeJS.ProcessEnv, name: string): ChildProcess {
  const child = spawn(process.execPath, [path.join(projectRoot(), 'dist/src/bin', script)], {
    env: { SECRET_KEYS: BENCH_SECRET_KEYS, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr.on('data', (c: Buffer) => process.stderr.write(`[${name}] ${c.toString()}`));
  return child;
}
