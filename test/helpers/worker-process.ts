import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';
import { TEST_SECRET_KEYS } from './secret-keys';

const root = path.resolve(__dirname, '../..');

/**
 * A production entry (src/bin/worker.ts, src/bin/main.ts) in a child process running the TypeScript sources, so a test
 * can signal or SIGKILL it. Resolves once its output contains `readyText`; `output()` has everything it printed.
 */
export async function spawnServiceProcess(
  entry: string,
  readyText: string,
  env: Record<string, string>,
  timeoutMs = 60000,
): Promise<ChildProcess & { output(): string }> {
  const child = spawn(process.execPath, ['-r', path.join(__dirname, 'ts-register.js'), path.join(root, entry)], {
    cwd: root,
    // Off unless a test asks for it: a dispatcher starts delivery workflows on its own task queue, and the
    // shared test database holds other tests' webhook events (production workers share one queue).
    // DATABASE_POOL_MAX: a test's processes share the suite's connection budget (README, "Postgres connections").
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      WEBHOOK_DISPATCHER: 'off',
      JOB_RECONCILER: 'off',
      DATABASE_POOL_MAX: '4',
      SECRET_KEYS: TEST_SECRET_KEYS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = () => {
      if (output.includes(readyText)) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before it ran:\n${output}`));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', onExit);
  });
  return Object.assign(child, { output: () => output });
}

/**
 * The production worker entry (src/bin/worker.ts) in a child process, so a test can SIGKILL it mid-activity.
 * Resolves once the worker polls its task queue.
 */
export function spawnWorkerProcess(env: Record<string, string>, timeoutMs = 60000) {
  return spawnServiceProcess('src/bin/worker.ts', 'worker running', env, timeoutMs);
}

/** The production API entry (src/bin/main.ts) in a child process; resolves once it listens. */
export function spawnApiProcess(env: Record<string, string>, timeoutMs = 60000) {
  return spawnServiceProcess('src/bin/main.ts', 'API listening', env, timeoutMs);
}

/** SIGKILL, and wait until the process is gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}
