import type { Db } from './types';
import { activeAssignmentsOfModel, type ModelAssignmentRow } from './assignments.repository';
import { aliasesOf } from './aliases.repository';
import type { JobRow } from './jobs.repository';
import type { ScheduleRow } from './schedules.repository';
import type { SubscriptionRow } from './subscriptions.repository';

/** What still uses a model or one of its versions: each blocks its deletion, the assignments also its archiving. */
export interface RegistryReferences {
  assignments: ModelAssignmentRow[];
  /** Aliases pointing at the version (at any version of the model, for a model's deletion). */
  aliases: string[];
  /** Subscriptions not disabled, from or to the model (a model's deletion only: they follow no version). */
  subscriptions: string[];
  schedules: string[];
  /** Jobs not yet final. */
  running_jobs: string[];
}

/** Enough to name what blocks; the message says when there are more. */
const LISTED = 20;

export async function registryReferences(db: Db, modelId: string, version?: string): Promise<RegistryReferences> {
  const assignments = await activeAssignmentsOfModel(db, modelId, version);
  const subscriptions =
    version === undefined
      ? await db<SubscriptionRow>('event_subscriptions')
          .where((w) => w.where('source_model_id', modelId).orWhere('target_model_id', modelId))
          .whereNot('status', 'disabled')
          .orderBy('subscription_id')
          .limit(LISTED)
          .pluck('subscription_id')
      : [];
  const of = version === undefined ? { model_id: modelId } : { model_id: modelId, model_version: version };
  const schedules = await db<ScheduleRow>('schedules').where(of).orderBy('schedule_id').limit(LISTED).pluck('schedule_id');
  const running = await db<JobRow>('model_jobs')
    .where(of)
    .whereIn('status', ['pending', 'running'])
    .orderBy('job_id')
    .limit(LISTED)
    .pluck('job_id');
  return { assignments, aliases: await aliasesOf(db, modelId, version), subscriptions, schedules, running_jobs: running };
}
