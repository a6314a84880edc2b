import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/**
 * The production worker entry (src/worker.ts) in a child process, so a test can SIGKILL it mid-activity.
 * Resolves once the worker polls its task queue.
 */
export async function spawnWorkerProcess(env: Record<string, string>, timeoutMs = 60000): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', path.join(__dirname, 'ts-register.js'), path.join(root, 'src/worker.ts')], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker process did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited with ${code} before it ran:\n${output}`));
    });
  });
  child.stdout!.removeAllListeners('data').resume();
  child.stderr!.removeAllListeners('data').resume();
  return child;
}

/** SIGKILL, and wait until the process is gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}
