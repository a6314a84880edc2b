import { spawn, ChildProcess } from 'node:child_process';

/** A Temporal binary run as a child: its output forwarded line by line, and a promise of its exit. */
export function spawnLogged(
  file: string,
  args: string[],
  onOutput?: (line: string) => void,
): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const forward = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => onOutput?.(l));
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited };
}

/** SIGTERM, and SIGKILL when the child has not exited after `graceMs`. */
export async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
