import type { OverlapPolicy, ScheduleSpec, SchedulePolicies } from '../../shapes';

/**
 * What the application needs of the workflow engine for schedules, without the SDK; src/temporal/schedule-gateway.ts
 * implements it on Temporal Schedules.
 */

/** Every Temporal Schedule this service makes has an id of this prefix (the reconciler lists them by it). */
export const SCHEDULE_ID_PREFIX = 'schedule-';

export function temporalScheduleIdFor(scheduleId: string): string {
  return `${SCHEDULE_ID_PREFIX}${scheduleId}`;
}

/** The schedule id of a Temporal Schedule this service made, or undefined for any other. */
export function scheduleIdOf(temporalScheduleId: string): string | undefined {
  return temporalScheduleId.startsWith(SCHEDULE_ID_PREFIX) ? temporalScheduleId.slice(SCHEDULE_ID_PREFIX.length) : undefined;
}

/** What Temporal needs of a schedule row, with the labels its memo, search attributes and summary show. */
export interface ScheduleDefinition {
  scheduleId: string;
  action: 'training' | 'inference' | 'service_inference';
  spec: ScheduleSpec;
  policies: SchedulePolicies;
  paused: boolean;
  note: string;
  labels: {
    clientId: string | null;
    domainId: string | null;
    serviceId: string | null;
    modelId: string | null;
    modelVersion: string | null;
    description: string;
  };
}

export interface ScheduleState {
  paused: boolean;
  note: string;
  nextFireTimes: Date[];
  /** Fire workflows running now. */
  running: number;
  createdAt: Date;
}

/** Temporal refused the calendar (its own validation, behind ours): the message says what, for a 400. */
export class ScheduleSpecRefused extends Error {}

export interface ScheduleGateway {
  /** Creates the Temporal Schedule; one that exists already is left as it is ('existing'). */
  create(def: ScheduleDefinition): Promise<'created' | 'existing'>;
  /** Replaces calendar, policies and labels; the paused state is kept (pause/unpause change it). */
  update(def: ScheduleDefinition): Promise<void>;
  delete(scheduleId: string): Promise<'deleted' | 'absent'>;
  pause(scheduleId: string, note: string): Promise<void>;
  unpause(scheduleId: string, note: string): Promise<void>;
  /** One fire now; its nominal time is the time Temporal takes it. */
  trigger(scheduleId: string, overlap: OverlapPolicy): Promise<void>;
  /** The fires of [start, end] as if that time passed now. */
  backfill(scheduleId: string, start: Date, end: Date, overlap: OverlapPolicy): Promise<void>;
  /** Paused state, note and next fire times; undefined when Temporal has no such schedule. */
  describe(scheduleId: string): Promise<ScheduleState | undefined>;
  /** Ids of every schedule this service has in the namespace (for the reconciler). */
  listIds(): Promise<string[]>;
  /** The schedule in the Temporal Web UI, when TEMPORAL_UI_URL is configured. */
  uiUrl(scheduleId: string): string | null;
}
