import { fork } from 'node:child_process';
import path from 'node:path';
import type { WorkerStart } from './worker-child';

/** The bench's worker process (`--worker-core`): its pid, the statements its pool has sent so far, its stop. */
export interface WorkerProcess {
  pid: number;
  statements(): Promise<number>;
  stop(): Promise<void>;
}

/** Forks bench/run/worker-child.ts, sends it its start and waits until its workers poll. */
export async function forkWorkers(start: WorkerStart): Promise<WorkerProcess> {
  const child = fork(path.join(__dirname, 'worker-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the bench's worker process exited (${code})`))),
  );
  const next = <T>(type: string) =>
    Promise.race([
      exited,
      new Promise<T>((resolve) => {
        const on = (m: { type: string } & T) => {
          if (m.type !== type) return;
          child.off('message', on);
          resolve(m);
        };
        child.on('message', on);
      }),
    ]);
  child.send(start);
  // A worker that neither polls nor exits within two minutes (a Temporal it cannot reach) ends the bench.
  const late = setTimeout(() => child.kill('SIGKILL'), 120_000);
  await next('ready').finally(() => clearTimeout(late));
  return {
    pid: child.pid!,
    async statements() {
      child.send({ type: 'statements' });
      return (await next<{ statements: number }>('statements')).statements;
    },
    async stop() {
      child.send({ type: 'stop' });
      await exited.catch(() => undefined);
    },
  };
}
