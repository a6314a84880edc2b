import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTemporalCluster } from '../dev/temporal/cluster';
import { startUiServer, type ServerTls } from '../dev/temporal/server';
import { stopChild } from '../dev/temporal/child-process';

/** TLS on the frontends from TEMPORAL_CLUSTER_TLS_* (PEM files); mTLS when a client CA bundle is named. */
function tlsFrom(env: NodeJS.ProcessEnv): ServerTls | undefined {
  const { TEMPORAL_CLUSTER_TLS_CERT: certFile, TEMPORAL_CLUSTER_TLS_KEY: keyFile, TEMPORAL_CLUSTER_TLS_CA: caFile } = env;
  if (!certFile && !keyFile && !caFile) return undefined;
  if (!certFile || !keyFile || !caFile)
    throw new Error('TLS on the cluster needs TEMPORAL_CLUSTER_TLS_CERT, TEMPORAL_CLUSTER_TLS_KEY and TEMPORAL_CLUSTER_TLS_CA together');
  return { certFile, keyFile, caFile, clientCaFile: env.TEMPORAL_CLUSTER_TLS_CLIENT_CA || undefined };
}

/**
 * `npm run temporal:cluster`: the production-shaped Temporal split into 2 frontend, 2 history and 2 matching
 * processes and the worker service on loopback addresses of their own, on DATABASE_URL's Postgres (its admin
 * connection; the local one by default), and the Web UI on the first frontend (plaintext clusters; port
 * TEMPORAL_CLUSTER_UI_PORT, a free one when unset). Prints the addresses to set and runs until Ctrl-C or SIGTERM.
 */
async function run() {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'mos-temporal-cluster-'));
  const tls = tlsFrom(process.env);
  const onOutput = process.env.TEMPORAL_CLUSTER_LOG ? (line: string) => console.error(line) : undefined;
  const cluster = await startTemporalCluster({
    postgresUrl: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    databasePrefix: process.env.TEMPORAL_CLUSTER_DATABASE || 'temporal_cluster',
    workDir,
    firstAddress: process.env.TEMPORAL_CLUSTER_FIRST_ADDRESS || undefined,
    basePort: process.env.TEMPORAL_CLUSTER_PORT ? Number(process.env.TEMPORAL_CLUSTER_PORT) : undefined,
    tls,
    onOutput,
  });
  // The UI server would need a client certificate of its own to reach an mTLS frontend: TLS clusters run without it.
  const ui = tls
    ? undefined
    : await startUiServer({
        address: cluster.frontends[0],
        namespace: 'default',
        workDir,
        port: process.env.TEMPORAL_CLUSTER_UI_PORT ? Number(process.env.TEMPORAL_CLUSTER_UI_PORT) : undefined,
        onOutput,
      }).catch(async (err: unknown) => {
        await cluster.stop();
        throw err;
      });
  if (ui) process.once('exit', () => ui.child.kill('SIGKILL'));
  console.log(`Temporal cluster up: frontends ${cluster.frontends.join(', ')}`);
  for (const node of cluster.nodes) console.log(`  ${node.service.padEnd(8)} ${node.ip} (pid ${node.pid})`);
  console.log(`TEMPORAL_ADDRESS=${cluster.frontends[0]}`);
  if (ui) console.log(`TEMPORAL_UI_URL=${ui.url}`);
  else console.log('No Web UI: the cluster runs with TLS (docs/temporal.md, "The cluster")');
  const stop = () => {
    (ui ? stopChild(ui.child, ui.exited, 5000) : Promise.resolve())
      .then(() => cluster.stop())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

run().catch((err) => {
  console.error('the Temporal cluster did not start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
