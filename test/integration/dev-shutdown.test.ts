import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testEnv } from '../helpers/test-env';
import { uid } from '../helpers/harness';

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

describe('npm start at Ctrl-C', () => {
  it('stops the API and the worker before the Postgres it started: no connection is lost on the way out', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mos-dev-stop-'));
    chmodSync(dataDir, 0o755); // like a project checkout: the postgres user (when run as root) may enter it
    const env: Record<string, string | undefined> = {
      ...process.env,
      PORT: '0',
      MOS_DATA_DIR: path.join(dataDir, 'data'),
      TEMPORAL_ADDRESS: testEnv.temporalAddress,
      TEMPORAL_TASK_QUEUE: uid('dev-stop'),
      LOG_LEVEL: 'info',
    };
    for (const name of ['DATABASE_URL', 'AUTH_JWKS_URL']) delete env[name];
    // npm start as a terminal runs it: in a process group of its own, which Ctrl-C signals as a whole.
    const child = spawn(process.execPath, ['dist/src/dev.js'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => output.includes('Ctrl-C stops everything') && resolve());
        void exited.then(() => reject(new Error(`npm start exited before it was ready:\n${output}`)));
      });
      process.kill(-child.pid!, 'SIGINT');
      expect({ code: await exited, warnings: warnings(output) }).toEqual({ code: 0, warnings: [] });
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
