import { noisyNeighbour } from '../noisy-neighbour';
import { ADMIN_URL, NOISY, TEMPORAL, arg } from './options';
import type { Service, Stack } from './stack';

/** The noisy-neighbour phase (bench/noisy-neighbour.ts, `--noisy N` flooding inits), over the bench's database. */
export async function runNoisy({ dbUrl, knex, stamp }: Stack, { privateKey, keys }: Service) {
  await noisyNeighbour({
    mode: TEMPORAL === 'server' ? 'server' : 'dev',
    temporalFairness: arg('noisy-temporal-fairness', 'on') !== 'off',
    adminUrl: ADMIN_URL,
    dbUrl: dbUrl.toString(),
    knex,
    stamp,
    flood: NOISY,
    idle: Number(arg('noisy-idle', '20')),
    limitedSeconds: Number(arg('noisy-limited-seconds', '10')),
    rounds: Number(arg('noisy-rounds', '1')),
    workerSlots: {
      workflowTasks: arg('worker-workflow-slots', '') || undefined,
      activities: arg('worker-activity-slots', '') || undefined,
    },
    privateKey,
    keys,
    log: (l) => console.log(l),
  });
}
