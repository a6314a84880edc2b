import os from 'node:os';
import { historyTimeline } from './timeline';
import { bareJobs, serviceJobs } from './run/jobs';
import { readRoutes, readRound } from './run/reads';
import { bareUpdates, completeParked, parkForCompletions } from './run/completions';
import { createFixtures } from './run/fixtures';
import { printCosts, printHeader, printTargets } from './run/report';
import { printFeatureValidation } from './run/feature-rules';
import { runNoisy } from './run/noisy';
import { runParked } from './run/parked';
import { roundContext } from './run/round-context';
import { startBaselines, startService, startStack, stopAll, stopRest, stopStack, type Stops } from './run/stack';
import { FLOOR, NOISY, ONLY, PARKED, PHASES, PIN, ROUNDS, STATEMENTS } from './run/options';
import { pinCores } from './run/pin';
import { printHistories, printStatements } from './run/statements';

/**
 * `npm run bench [-- --temporal dev|server] [--rounds 3] [--parked 2000] [--worker-cache N] [--only service|bare]
 * [--phases jobs,reads,completions] [--inits 200] [--noisy 1500] [--noisy-rounds 1] [--pin] [--worker-core]` (bench/README.md): the service's paths
 * side by side with bare baselines on the same Temporal server and Postgres, rounds interleaved, medians and
 * ratios printed per target of the job-path benchmark. Not part of the test suite. `--timeline` prints the history of one completion
 * with 10 subscriptions per round, event by event with the time since the previous one. `--only service` skips the bare rounds
 * (for profiling the service alone); `--parked 0` skips the memory scenario, `--noisy 0` the noisy neighbour
 * (bench/noisy-neighbour.ts). `--pin` runs this process on one core and Temporal and Postgres on the other;
 * `--worker-core` runs the workers (the service's and the bare one) in a process of their own, which `--pin` then gives
 * the second core alone.
 *
 * The pieces are in bench/run/: options.ts (the flags), stack.ts (database, Temporal server, the service's API and
 * worker, the bare baselines), fixtures.ts (the models and domain the rounds use), round-context.ts, the phases of a
 * round (jobs.ts, reads.ts, completions.ts), report.ts and feature-rules.ts (what is printed after the rounds),
 * noisy.ts and parked.ts (the phases after them).
 */
async function run() {
  const stack = await startStack();
  const stops: Stops = [];
  let unpin: (() => void) | undefined;
  try {
    const service = await startService(stack, stops);
    const baselines = await startBaselines(stack, service, stops);
    unpin = PIN ? pinCores(service.workers?.pid) : undefined;
    const { readMeJobId } = await createFixtures(service);
    const ctx = roundContext(stack, service, baselines);
    const reads = readRoutes(readMeJobId);
    const withService = ONLY !== 'bare';
    const withBare = baselines !== undefined;

    printHeader();
    const timelines: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      process.stdout.write(`round ${round}/${ROUNDS}:`);
      if (PHASES.has('jobs')) {
        process.stdout.write(' jobs');
        await sideBySide(round, {
          service: withService && (() => serviceJobs(ctx, round)),
          bare: withBare && (() => bareJobs(ctx, round)),
        });
      }
      if (PHASES.has('reads')) {
        process.stdout.write(' reads');
        for (const read of reads) {
          await sideBySide(round, {
            service: withService && (() => readRound(ctx, 'service', read)),
            bare: withBare && (() => readRound(ctx, 'bare', read)),
          });
        }
      }
      if (PHASES.has('completions') && withService) {
        process.stdout.write(' completions');
        const parked = await parkForCompletions(ctx);
        await sideBySide(round, {
          service: () => completeParked(ctx, parked, timelines),
          bare: withBare && (() => bareUpdates(ctx, round)),
        });
      } else if (PHASES.has('completions') && withBare) await bareUpdates(ctx, round);
      console.log(` (load ${os.loadavg()[0].toFixed(2)})`);
    }

    // `--rounds 0` (the noisy neighbour or the parked jobs alone) has no job-path figures to print.
    if (ROUNDS > 0) {
      printTargets(ctx.figures, reads);
      printCosts(ctx.figures);
    }
    if (STATEMENTS) {
      printStatements();
      await printHistories(stack.temporal);
    }
    // --timeline: where one completion with 10 subscriptions spends its time, from its workflow's history.
    for (const jobId of timelines) console.log(await historyTimeline(stack.temporal, `job-${jobId}`));
    printFeatureValidation();

    const floor = FLOOR > 0 ? floorCheck(ctx.figures.m('service.e2e') / ctx.figures.m('bare.e2e')) : true;
    await stopAll(stops);
    if (!floor) process.exitCode = 1;
    if (NOISY > 0) await runNoisy(stack, service);
    if (PARKED > 0) await runParked(stack.server.address);
  } finally {
    unpin?.();
    await stopRest(stops);
    await stopStack(stack);
  }
}

/** The CI floor: the end-to-end ratio against FLOOR, printed; false when it is below (or was not measured). */
function floorCheck(ratio: number): boolean {
  const met = Number.isFinite(ratio) && ratio >= FLOOR;
  console.log(
    `floor check: end to end ${Number.isFinite(ratio) ? ratio.toFixed(2) : 'not measured'} of bare, floor ${FLOOR}: ${met ? 'ok' : 'BELOW THE FLOOR'}`,
  );
  return met;
}

/**
 * One phase of a round on both sides, one after the other: the bare side goes first in even rounds and last in odd
 * ones. A side that is not measured (`--only`) is `false`.
 */
async function sideBySide(round: number, sides: { service: false | (() => Promise<void>); bare: false | (() => Promise<void>) }) {
  if (sides.bare && round % 2 === 0) await sides.bare();
  if (sides.service) await sides.service();
  if (sides.bare && round % 2 === 1) await sides.bare();
}

run().catch((err) => {
  console.error('bench failed:', err);
  process.exit(1);
});
