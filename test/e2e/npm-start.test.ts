import { spawn, ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../src/dev/temporal/dev-server';
import { testEnv } from '../helpers/test-env';
import { uid } from '../helpers/harness';
import { eventually } from '../helpers/fixtures';

const root = path.resolve(__dirname, '../..');

/** The log lines of `output` at warn level or above (pino's JSON lines). */
function warnings(output: string): string[] {
  return output.split('\n').filter((line) => {
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 40;
    } catch {
      return false;
    }
  });
}

/**
 * `npm start` (its compiled entry, as `npm start` runs it after the build) with its own embedded Postgres and the
 * suite's Temporal, as a terminal runs it: in a process group of its own, which Ctrl-C signals as a whole.
 */
async function npmStart(env: Record<string, string> = {}) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mos-npm-start-'));
  chmodSync(tmp, 0o755); // like a project checkout: the postgres user (when run as root) may enter it
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    PORT: '0',
    MOS_DATA_DIR: path.join(tmp, 'data'),
    TEMPORAL_ADDRESS: testEnv.temporalAddress,
    TEMPORAL_TASK_QUEUE: uid('npm-start'),
    LOG_LEVEL: 'info',
    ...env,
  };
  for (const name of ['DATABASE_URL', 'AUTH_JWKS_URL']) delete childEnv[name];
  const child: ChildProcess = spawn(process.execPath, ['dist/src/bin/dev.js'], { cwd: root, env: childEnv, detached: true });
  const run = { child, output: '' };
  child.stdout!.on('data', (chunk: Buffer) => (run.output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (run.output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => run.output.includes('Ctrl-C stops everything') && resolve());
    void exited.then(() => reject(new Error(`npm start exited before it was ready:\n${run.output}`)));
  });
  return {
    ...run,
    get output() {
      return run.output;
    },
    /** Ctrl-C: SIGINT to the whole group; resolves with the exit code. */
    async interrupt() {
      process.kill(-child.pid!, 'SIGINT');
      return exited;
    },
    cleanup() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

describe('npm start', () => {
  it('stops the API and the worker before the Postgres it started at Ctrl-C: no connection is lost on the way out', async () => {
    const started = await npmStart();
    try {
      const code = await started.interrupt();
      expect({ code, warnings: warnings(started.output) }).toEqual({ code: 0, warnings: [] });
    } finally {
      started.cleanup();
    }
  });

  it('prints the URL of the embedded Postgres it started, whose port changes at each start', async () => {
    const started = await npmStart();
    try {
      const url = /^\s+Postgres\s+(postgres:\/\/\S+)/m.exec(started.output)?.[1];
      expect(url).toMatch(/^postgres:\/\/postgres:postgres@127\.0\.0\.1:\d+\/postgres$/);
      const client = new Client({ connectionString: url });
      await client.connect();
      expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      await client.end();
    } finally {
      await started.interrupt();
      started.cleanup();
    }
  });

  it("serves the worker's metrics with the Temporal SDK's on WORKER_METRICS_PORT", async () => {
    const [port, sdkPort] = [await freePort(), await freePort()];
    const started = await npmStart({ WORKER_METRICS_PORT: String(port), WORKER_SDK_METRICS_PORT: String(sdkPort) });
    try {
      expect(started.output).toContain(`worker and Temporal SDK: http://127.0.0.1:${port}/metrics`);
      // The SDK's series appear once its worker has polled: waited for, not slept on.
      const text = await eventually(async () => {
        const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return /^temporal_/m.test(body) && body;
      });
      expect(text).toMatch(/^mos_jobs_started_total\{/m);
    } finally {
      await started.interrupt();
      started.cleanup();
    }
  });
});
