import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const EventType = temporal.api.enums.v1.EventType;

/** Statements sent by the API and the worker during the jobs rounds, by their SQL (its literals are parameters already). */
const bySql = new Map<string, number>();
let jobs = 0;
let polls = 0;
/** A workflow of each side's last jobs round, whose history `printHistories` shows. */
export const sampled: { service?: string; bare?: string } = {};

/** One statement of the service's side of a jobs round. */
export function noteStatement(sql: string) {
  const key = sql
    .replace(/\s+/g, ' ')
    .replace(/\$\d+(, \$\d+)*/g, '$n')
    .slice(0, 140);
  bySql.set(key, (bySql.get(key) ?? 0) + 1);
}

/** The end of a round: `n` jobs ran, `count` statements of them were the bench's own polls. */
export function noteStatementRound(n: number, count: number) {
  jobs += n;
  polls += count;
}

/** Statements per job by their SQL, most frequent first (the bench's own polls left out). */
export function printStatements() {
  if (jobs === 0) return;
  console.log(`statements per echo job by SQL (${jobs} jobs):`);
  const rows = [...bySql.entries()].sort((a, b) => b[1] - a[1]);
  for (const [sql, n] of rows) {
    const per = (sql.startsWith('select count(*) as "n" from "model_jobs" where "job_id" in') ? n - polls : n) / jobs;
    if (per >= 0.01) console.log(`  ${per.toFixed(2).padStart(5)}  ${sql}`);
  }
}

/** The events of a workflow's history by type (and activity, marker or update name): what Temporal stores per job. */
export async function printHistoryShape(client: Client, label: string, workflowId: string) {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const counts = new Map<string, number>();
  for (const event of history.events ?? []) {
    const name =
      event.activityTaskScheduledEventAttributes?.activityType?.name ??
      event.markerRecordedEventAttributes?.markerName ??
      event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
      '';
    const key = `${EventType[event.eventType ?? 0].replace(/^EVENT_TYPE_/, '')}${name ? ` ${name}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  console.log(`${label} history (${workflowId}): ${history.events?.length ?? 0} events`);
  for (const [key, n] of counts) console.log(`  ${n} × ${key}`);
}

/** The history shapes of the sampled service job and bare workflow. */
export async function printHistories(client: Client) {
  if (sampled.service) await printHistoryShape(client, 'service job', sampled.service);
  if (sampled.bare) await printHistoryShape(client, 'bare workflow', sampled.bare);
}
