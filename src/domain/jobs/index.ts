export { type JobsService, createJobsService } from './jobs.service';
export { type JobRequestContext, type StageJob } from './job-staging.service';
export { type Admission, createAdmission } from './launch/admission';
export { createJobStarts, moveToTraining } from './launch/job-requests';
export { type JobSlots, createJobSlots } from './launch/job-slots';
export { startReconciler } from './launch/reconciler';
export { startSlotReleaser } from './launch/slot-releaser';
export { CascadeRejected, type FireInput } from './run/cascades';
export { type FinishedJob, type RecordedOutcome, recordCancellation } from './run/job-outcomes';
export { JobMissing } from './run/job-dispatch-steps';
export { type JobRuns, createJobRuns } from './run/job-runs';
export { REDELIVER_AFTER_SECONDS } from './run/outcome-redelivery';
export {
  MAX_OUTPUT_BYTES,
  MAX_OUTPUT_DEPTH,
  MAX_OUTPUT_VALUES,
  OUTPUT_UNSTORABLE,
  storableText,
  unstorableError,
  unstorableReason,
} from './run/storable-outcomes';
export type { JobRow, JobView } from './job.view';
