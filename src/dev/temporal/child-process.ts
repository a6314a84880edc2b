import { spawn, ChildProcess } from 'node:child_process';

/** Lines of a child's output kept to explain its exit: a server that dies at start says why in its last lines. */
const RECENT_LINES = 20;

/**
 * A Temporal binary run as a child: its output forwarded line by line, its last lines kept (`recent`), and a promise
 * of its exit.
 */
export function spawnLogged(
  file: string,
  args: string[],
  onOutput?: (line: string) => void,
): { child: ChildProcess; exited: Promise<void>; recent: string[] } {
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const recent: string[] = [];
  const forward = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => {
        recent.push(l);
        if (recent.length > RECENT_LINES) recent.shift();
        onOutput?.(l);
      });
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, recent };
}

/** SIGTERM, and SIGKILL when the child has not exited after `graceMs`. */
export async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
