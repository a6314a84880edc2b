import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../src/paths';

/** A compiled production entry (`main.js`, `worker.js`) as a child process; its stderr goes to ours, prefixed by `name`. */
export function startProcess(script: string, env: NodeJS.ProcessEnv, name: string): ChildProcess {
  const child = spawn(process.execPath, [path.join(projectRoot(), 'dist/src', script)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.on('data', (c: Buffer) => process.stderr.write(`[${name}] ${c.toString()}`));
  return child;
}
