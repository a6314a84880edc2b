import type { EventRow } from '../../db/webhooks.repository';

/**
 * The body of a delivery, `{type, timestamp, data}` (Standard Webhooks). Rendered once per attempt from the
 * stored event, so every attempt carries the same bytes except for `temporal_url`, which comes from this
 * process's TEMPORAL_UI_URL as in the API's own job responses.
 */
export function renderEventBody(
  event: Pick<EventRow, 'type' | 'occurred_at' | 'data'>,
  jobUiUrl: (jobId: string) => string | null,
): string {
  const data =
    event.type.startsWith('job.') && typeof event.data.job_id === 'string'
      ? { ...event.data, temporal_url: jobUiUrl(event.data.job_id) }
      : event.data;
  return JSON.stringify({ type: event.type, timestamp: event.occurred_at.toISOString(), data });
}
