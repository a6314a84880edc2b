// The job workflow's patch ids (docs/workflow-changes.md): each names a change of its commands; runs started before it
// replay the old path.

/** Runs started before this change replay with the database steps as (remote) activities. */
export const LOCAL_DB_STEPS = 'local-db-steps';
/**
 * A cancelled run records the cancellation (unless the API already did), stops the handler's ECS task and closes as
 * cancelled, without recording a completion or firing a cascade. Runs cancelled before this change replay as they ran.
 */
export const CANCELLATION = 'job-cancellation';
/**
 * After the report, one local activity records the outcome, creates the cascade jobs and stores the answer in one
 * transaction; the completion is answered in the same workflow task, and the cascades' workflows are started after it.
 * Runs started before this change replay with the outcome, each cascade and the stored answer as separate steps.
 */
export const ONE_STEP_OUTCOME = 'one-step-outcome';
/**
 * The dispatch may last as long as a sync `http` handler's call (heartbeating), and its retries end at the completion
 * deadline. Runs started before this change replay with the 15-second dispatch retried until it succeeds.
 */
export const HTTP_HANDLERS = 'http-handlers';
/**
 * An outcome step that fails for good (an outcome the record cannot hold, a bug) records the job failed with the
 * reason `output_unstorable` in a second outcome step, so no job stays `running` behind a closed workflow. Runs whose
 * step failed before this change replay as they ran: the workflow failed.
 */
export const UNRECORDED_OUTCOME = 'unrecorded-outcome';
