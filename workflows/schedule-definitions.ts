import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// The fire workflow's contract with the service. Other layers import these types from here.

/** The argument a Temporal Schedule passes to every fire (src/temporal/schedule-gateway.ts). */
export interface ScheduledJobInput {
  scheduleId: string;
}

/** What a fire did: the job it started and how that ended, or why it started nothing. */
export type ScheduledRunResult =
  { outcome: 'started'; jobId: string; status: string } | { outcome: 'skipped'; reason: string } | { outcome: 'gone' };

/** Set by Temporal on every workflow a schedule starts: the fire's nominal time (before jitter). */
export const SCHEDULED_START_TIME = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/** Failure type of a fire whose job ended other than in success: Temporal's pause-on-failure acts on it. */
export const SCHEDULED_JOB_FAILED = 'ScheduledJobFailed';
