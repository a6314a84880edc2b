import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const EventType = temporal.api.enums.v1.EventType;

/** A workflow's history as lines of "+ms since the previous event, event type (activity or update name)". */
export async function historyTimeline(client: Client, workflowId: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  let previous: number | undefined;
  const lines = [`timeline of ${workflowId}`];
  for (const event of history.events ?? []) {
    const at = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
    const name =
      event.activityTaskScheduledEventAttributes?.activityType?.name ??
      event.markerRecordedEventAttributes?.markerName ??
      event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
      '';
    lines.push(`  ${previous === undefined ? '' : `+${at - previous}`.padStart(6)} ms  ${EventType[event.eventType ?? 0]} ${name}`);
    previous = at;
  }
  return lines.join('\n');
}
