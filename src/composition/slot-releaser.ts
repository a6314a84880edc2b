import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { ServiceMetrics } from '../observability/metrics';
import { startSlotReleaser, type JobSlots } from '../domain/jobs';
import type { JobGateway } from '../domain/ports';
import { createJobCore } from './job-core';

/**
 * The releaser of held jobs (src/domain/jobs/launch/slot-releaser.ts) over the composition's slots, or over slots
 * of its own as the config says (the test harness runs one beside an API).
 */
export function slotReleaserFor(deps: {
  knex: Knex;
  gateway: JobGateway;
  log: Logger;
  metrics?: ServiceMetrics;
  config: Config;
  slots?: JobSlots;
  sweepMs?: number;
}) {
  const slots = deps.slots ?? createJobCore(deps).slots;
  return startSlotReleaser({ knex: deps.knex, slots, log: deps.log, sweepMs: deps.sweepMs });
}
