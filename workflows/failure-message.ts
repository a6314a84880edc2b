import { ActivityFailure } from '@temporalio/workflow';

/** The message of a failed activity's cause (what the activity threw), else of the error itself. */
export function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
