import type { Client } from '@temporalio/client';
import { composeWorker, slotReleaserFor, type Resources } from '../../src/composition';
import type { JobGateway } from '../../src/domain/ports';
import { createJobGateway } from '../../src/temporal/job-gateway';

/** The bench's job gateway: the `bench` task queue, with a completion deadline no round reaches. */
export function benchGateway(client: Client): JobGateway {
  return createJobGateway({ client, taskQueue: 'bench', namespace: 'default', completionDeadlineSeconds: 600 });
}

/**
 * The service's job worker as the bench runs it (in the bench's process, or in the `--worker-core` process): no loops,
 * no metrics server, and the releaser of jobs held for their tenant's fair share (JOB_CAPACITY) as the worker process
 * runs it, without which the jobs past the share would stay pending (its sweep left to its long interval;
 * notifications release them). Answers its stop.
 */
export async function startBenchWorker(resources: Resources, gateway: JobGateway): Promise<() => Promise<void>> {
  const worker = await composeWorker({ ...resources, gateway, sdkLogLevel: 'ERROR', loops: false, serveMetrics: false });
  const workerRun = worker.run();
  const releaser = slotReleaserFor({ ...resources, gateway, slots: worker.slots, sweepMs: 3_600_000 });
  await releaser.ready;
  return async () => {
    await releaser.stop();
    await worker.close();
    await workerRun;
  };
}
