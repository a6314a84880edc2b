import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { uid } from '../helpers/harness';
import { eventually } from '../helpers/fixtures';

const root = path.resolve(__dirname, '../..');

/*
 * `npm start` as a supervisor signals it. Each case starts the whole embedded stack, its own Temporal dev server
 * included, whatever Temporal the suite runs on: so `npm run test:server` leaves this file to `npm test`.
 */
describe('npm start, signalled', () => {
  /** The pids of `pid`'s descendants, from /proc. */
  function descendants(pid: number): number[] {
    const parents = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // gone meanwhile
      }
    }
    const found: number[] = [];
    const queue = [pid];
    while (queue.length) {
      const current = queue.shift()!;
      for (const [child, parent] of parents) {
        if (parent !== current || found.includes(child)) continue;
        found.push(child);
        queue.push(child);
      }
    }
    return found;
  }
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  /**
   * `npm start` itself, through npm (the build skipped: the suite built it), with embedded Postgres and its own Temporal
   * dev server, signalled as a supervisor, an IDE or `timeout` signals it: the npm process alone.
   */
  async function realNpmStart() {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mos-npm-signal-'));
    chmodSync(tmp, 0o755);
    const env: Record<string, string | undefined> = {
      ...process.env,
      PORT: '0',
      MOS_DATA_DIR: path.join(tmp, 'data'),
      MOS_SKIP_BUILD: '1',
      TEMPORAL_TASK_QUEUE: uid('npm-signal'),
      LOG_LEVEL: 'warn',
    };
    for (const name of ['DATABASE_URL', 'AUTH_JWKS_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_MODE']) delete env[name];
    const npm = spawn('npm', ['start'], { cwd: root, env, detached: true });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const gone = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    // Bounded, so that a stop that never comes fails the test (and its cleanup still runs) instead of hanging it.
    const exited = () =>
      Promise.race([
        gone,
        new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`npm did not exit:\n${output}`)), 60000).unref()),
      ]);
    await new Promise<void>((resolve, reject) => {
      npm.stdout.on('data', () => output.includes('Ctrl-C stops everything') && resolve());
      void gone.then(() => reject(new Error(`npm start exited before it was ready:\n${output}`)));
    });
    const api = /API\s+(http:\/\/\S+)\/v2\/health/.exec(output)![1];
    const started = descendants(npm.pid!);
    return {
      npm,
      api,
      started,
      exited,
      get output() {
        return output;
      },
      cleanup() {
        for (const pid of [npm.pid!, ...started]) if (alive(pid)) process.kill(pid, 'SIGKILL');
        rmSync(tmp, { recursive: true, force: true });
      },
    };
  }

  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    'stops everything it started, Postgres and Temporal included, when only the npm process gets %s',
    async (signal) => {
      const run = await realNpmStart();
      try {
        expect((await fetch(`${run.api}/v2/health/ready`)).status).toBe(200);
        // npm, the runner, embedded Postgres (and its server processes), the Temporal dev server.
        expect(run.started.length).toBeGreaterThanOrEqual(4);
        process.kill(run.npm.pid!, signal);
        await run.exited();
        await eventually(
          async () => run.started.every((pid) => !alive(pid)),
          60000,
          `every process npm start started to exit after ${signal}`,
        );
        await expect(fetch(`${run.api}/v2/health/ready`)).rejects.toThrow();
        expect(run.output).not.toContain('forcing');
      } finally {
        run.cleanup();
      }
    },
    120000,
  );

  it('forces the stop at a second signal to the npm process', async () => {
    const run = await realNpmStart();
    try {
      process.kill(run.npm.pid!, 'SIGTERM');
      await eventually(async () => run.output.includes('stopping everything'), 20000, 'the first signal taken');
      process.kill(run.npm.pid!, 'SIGTERM');
      await run.exited();
      await eventually(async () => run.started.every((pid) => !alive(pid)), 60000, 'every process npm start started to exit');
      expect(run.output).toContain('again: forcing the stop');
    } finally {
      run.cleanup();
    }
  }, 120000);
});
