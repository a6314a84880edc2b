import type { Knex } from 'knex';
import { every } from '../periodic';
import type { Logger } from 'pino';
import * as repo from '../db/webhooks.repository';
import { inTransaction } from '../db/transaction';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { createWebhookLauncher } from './webhook-launcher';
import type { WebhookLauncher, WebhookQueue } from '../domain/ports';

/** Events fanned out per transaction. */
const BATCH = 100;

/**
 * Turns outbox rows into deliveries, in the worker process like the job reconciler. One transaction claims a batch
 * of events (SKIP LOCKED: several workers share the work), inserts one delivery per matching endpoint (a unique
 * key makes a repeat add nothing) and marks the events dispatched; only after the commit are the queues'
 * workflows started. A crash between the two leaves deliveries pending with no attempt: the same loop finds those
 * queues (`relaunchAfterSeconds`) and starts them, so no committed event is lost and none is sent twice by this.
 */
export function startWebhookDispatcher(deps: {
  knex: Knex;
  launcher: WebhookLauncher;
  log: Logger;
  everyMs: number;
  relaunchAfterSeconds: number;
}) {
  const { knex, launcher, log } = deps;
  let running = true;

  async function fanOut(): Promise<{ queues: WebhookQueue[]; full: boolean }> {
    return inTransaction(knex, async (trx) => {
      const events = await repo.claimUndispatched(trx, BATCH);
      const queues = new Map<string, WebhookQueue>();
      for (const event of events) {
        // A ping's delivery is written with its event, for its one endpoint.
        const endpoints = event.target_webhook_id ? [] : await repo.endpointsFor(trx, event);
        for (const d of await repo.insertDeliveries(
          trx,
          event,
          endpoints.map((e) => e.webhook_id),
        ))
          queues.set(`${d.webhook_id} ${d.ordering_key}`, d);
      }
      await repo.markDispatched(
        trx,
        events.map((e) => e.event_id),
      );
      return { queues: [...queues.values()], full: events.length === BATCH };
    });
  }

  async function pass(): Promise<void> {
    try {
      for (let more = true; more && running;) {
        const { queues, full } = await fanOut();
        for (const q of queues) await launcher.launch(q);
        more = full;
      }
      for (const q of await repo.strandedQueues(knex, deps.relaunchAfterSeconds)) {
        await launcher.launch(q);
        log.info({ webhookId: q.webhook_id, orderingKey: q.ordering_key }, 'webhook dispatcher restarted a queue with no recent attempt');
      }
    } catch (err) {
      log.warn({ err }, 'webhook dispatcher pass failed; the next pass retries');
    }
  }

  const stopLoop = every(deps.everyMs, 0, pass);
  return {
    /** One pass now (tests). */
    runOnce: pass,
    async stop() {
      running = false;
      await stopLoop();
    },
  };
}

/** The dispatcher as configured, or undefined when WEBHOOK_DISPATCHER=off. */
export function webhookDispatcherFor(deps: { knex: Knex; client: Client; config: Config; log: Logger }) {
  const { webhooks } = deps.config;
  if (!webhooks.dispatcherEnabled) return undefined;
  const launcher = createWebhookLauncher({ client: deps.client, taskQueue: deps.config.temporal.taskQueue, config: webhooks });
  return startWebhookDispatcher({
    knex: deps.knex,
    launcher,
    log: deps.log,
    everyMs: webhooks.dispatchIntervalMs,
    relaunchAfterSeconds: webhooks.relaunchAfterSeconds,
  });
}
