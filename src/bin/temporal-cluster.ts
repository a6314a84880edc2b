import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTemporalCluster } from '../dev/temporal/cluster';
import type { ServerTls } from '../dev/temporal/server';

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
 * connection; the local one by default). Prints the frontends' addresses and runs until Ctrl-C.
 */
async function run() {
  const cluster = await startTemporalCluster({
    postgresUrl: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    databasePrefix: process.env.TEMPORAL_CLUSTER_DATABASE || 'temporal_cluster',
    workDir: mkdtempSync(path.join(os.tmpdir(), 'mos-temporal-cluster-')),
    firstAddress: process.env.TEMPORAL_CLUSTER_FIRST_ADDRESS || undefined,
    basePort: process.env.TEMPORAL_CLUSTER_PORT ? Number(process.env.TEMPORAL_CLUSTER_PORT) : undefined,
    tls: tlsFrom(process.env),
    onOutput: process.env.TEMPORAL_CLUSTER_LOG ? (line) => console.error(line) : undefined,
  });
  console.log(`Temporal cluster up: frontends ${cluster.frontends.join(', ')}`);
  for (const node of cluster.nodes) console.log(`  ${node.service.padEnd(8)} ${node.ip} (pid ${node.pid})`);
  console.log(`TEMPORAL_ADDRESS=${cluster.frontends[0]}`);
  const stop = () => {
    cluster.stop().then(
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
