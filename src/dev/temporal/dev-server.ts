import type { ChildProcess } from 'node:child_process';
import { spawnLogged, stopChild } from './child-process';
import { devServerArgs } from './server-tuning';
import { existsSync } from 'node:fs';
import { ensurePrivateDir } from '../../paths';
import { createServer } from 'node:net';
import path from 'node:path';
import { TemporalConnection } from '../../temporal/connection';
import { projectRoot } from '../../paths';

/** A free TCP port on 127.0.0.1 (or `preferred` when it is free). */
export async function freePort(preferred = 0): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const { port: bound } = server.address() as { port: number };
        server.close(() => resolve(bound));
      });
    });
  if (preferred) {
    try {
      return await tryPort(preferred);
    } catch {
      // taken: fall back to any free port
    }
  }
  return tryPort(0);
}

export interface DevServer {
  address: string;
  uiUrl: string | null;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  binary?: string;
  /** SQLite file for durable state; in-memory when omitted. */
  dbFile?: string;
  port?: number;
  uiPort?: number;
  headless?: boolean;
  onOutput?: (line: string) => void;
  /** Dynamic configuration; src/dev/temporal/server-tuning.ts's by default. */
  dynamicConfig?: Record<string, number | boolean>;
}

/**
 * Starts `temporal server start-dev`; resolves once it listens. It registers no search attributes: the service
 * does that itself (src/temporal/search-attributes.ts), as it must on any server.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const binary = options.binary ?? process.env.TEMPORAL_CLI ?? findCli();
  const port = await freePort(options.port);
  const uiPort = options.headless ? 0 : await freePort(options.uiPort);
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error', '--log-format', 'json'];
  args.push(...devServerArgs(options.dynamicConfig));
  if (options.headless) args.push('--headless');
  else args.push('--ui-port', String(uiPort), '--ui-ip', '127.0.0.1');
  if (options.dbFile) {
    ensurePrivateDir(path.dirname(options.dbFile));
    args.push('--db-filename', options.dbFile);
  }
  const { child, exited } = spawnLogged(binary, args, options.onOutput);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const address = `127.0.0.1:${port}`;
  await waitForPort(port, child, 60000);
  return {
    address,
    uiUrl: options.headless ? null : `http://127.0.0.1:${uiPort}`,
    process: child,
    async stop() {
      process.removeListener('exit', killOnExit);
      await stopChild(child, exited, 10000);
    },
  };
}

function findCli(): string {
  const found = path.join(projectRoot(), '.tools/bin/temporal');
  if (!existsSync(found)) throw new Error('Temporal CLI not found: run `npm run setup:temporal` (or set TEMPORAL_CLI)');
  return found;
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal dev server exited with code ${child.exitCode}`);
    try {
      const connection = await TemporalConnection.open({ address: `127.0.0.1:${port}`, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        // The namespace is ready once describing it succeeds.
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } finally {
        await connection.close();
      }
    } catch {
      if (Date.now() > deadline) throw new Error(`temporal dev server did not start within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}
