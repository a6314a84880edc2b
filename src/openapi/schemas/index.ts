import { commonSchemas } from './common';
import { tenantSchemas } from './tenants';
import { modelSchemas } from './models';
import { assignmentSchemas } from './assignments';
import { jobSchemas } from './jobs';
import { webhookSchemas } from './webhooks';
import { changeSafetySchemas } from './change-safety';
import { scheduleSchemas } from './schedules';
import { rolloutSchemas } from './rollouts';
import { dispatchSchemas } from './dispatch';
import { modelTagSchemas } from './model-tags';

export { dispatchCalls } from './dispatch';
export { IDENTIFIER_PATTERN, pathParameterSchema } from './common';

/** Component schemas of the OpenAPI document: the single source for request validation and the docs. */
export const schemas: Record<string, object> = {
  ...commonSchemas,
  ...tenantSchemas,
  ...modelSchemas,
  ...modelTagSchemas,
  ...assignmentSchemas,
  ...jobSchemas,
  ...webhookSchemas,
  ...changeSafetySchemas,
  ...scheduleSchemas,
  ...rolloutSchemas,
  ...dispatchSchemas,
};
