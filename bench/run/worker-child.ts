import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createKnex } from '../../src/db/knex';
import { connectTemporalClient } from '../../src/temporal/connection';
import { ServiceMetrics } from '../../src/observability/metrics';
import { poolStats } from '../../src/db/pool-stats';
import { startBareWorker } from '../baselines';
import { benchGateway, startBenchWorker } from './bench-worker';

/** What the bench sends its worker process first: where the database and Temporal are, and the service's settings. */
export interface WorkerStart {
  dbUrl: string;
  temporalAddress: string;
  pool: number;
  /** The variables the bench's own config was loaded from (bench/run/stack.ts). */
  configEnv: Record<string, string>;
  publicBaseUrl: string;
  bare: boolean;
}

/** The messages the bench sends afterwards. */
export type WorkerMessage = { type: 'statements' } | { type: 'stop' };

/**
 * `--worker-core` (bench/run/workers.ts forks this): the service's job worker and the bare worker, each composed as
 * in the bench's own process, in a process of their own so that `--pin` gives the workers a core the API, the load
 * generator, Temporal and Postgres do not use. The statements its pool sends are counted for the bench's per-job figure.
 */
async function serve(start: WorkerStart) {
  const config = loadConfig(start.configEnv);
  config.publicBaseUrl = start.publicBaseUrl;
  const log = pino({ level: 'silent' });
  const knex = createKnex(start.dbUrl, { max: start.pool });
  let statements = 0;
  knex.on('query', () => statements++);
  const temporal = await connectTemporalClient({ address: start.temporalAddress }, 'default');
  const resources = { config, knex, temporal, log, metrics: new ServiceMetrics({ pool: poolStats(knex) }) };
  const stopWorker = await startBenchWorker(resources, benchGateway(temporal));
  const bare = start.bare ? await startBareWorker(start.temporalAddress, temporal) : undefined;
  process.on('message', (m: WorkerMessage) => {
    if (m.type === 'statements') process.send!({ type: 'statements', statements });
    else void stop();
  });
  const stop = async () => {
    await bare?.stop();
    await stopWorker();
    await temporal.connection.close();
    await knex.destroy();
    process.exit(0);
  };
  process.send!({ type: 'ready' });
}

process.once('message', (start: WorkerStart) => {
  serve(start).catch((err) => {
    console.error('bench worker process failed:', err);
    process.exit(1);
  });
});
