import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTemporalCluster } from '../dev/temporal/cluster';

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
