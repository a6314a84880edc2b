import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes every job workflow carries; the worker and `npm run migrate` register them (src/temporal/search-attributes.ts).
 * Eight of the namespace's ten Keyword slots under SQL visibility; the job id is in the workflow id instead. */
export const MODEL_ID = defineSearchAttributeKey('ModelId', SearchAttributeType.KEYWORD);
export const MODEL_VERSION = defineSearchAttributeKey('ModelVersion', SearchAttributeType.KEYWORD);
export const JOB_TYPE = defineSearchAttributeKey('JobType', SearchAttributeType.KEYWORD);
export const JOB_TRIGGER = defineSearchAttributeKey('JobTrigger', SearchAttributeType.KEYWORD);
export const CLIENT_ID = defineSearchAttributeKey('ClientId', SearchAttributeType.KEYWORD);
export const DOMAIN_ID = defineSearchAttributeKey('DomainId', SearchAttributeType.KEYWORD);
export const SERVICE_ID = defineSearchAttributeKey('ServiceId', SearchAttributeType.KEYWORD);
export const JOB_STATUS = defineSearchAttributeKey('JobStatus', SearchAttributeType.KEYWORD);

export const JOB_SEARCH_ATTRIBUTES = [MODEL_ID, MODEL_VERSION, JOB_TYPE, JOB_TRIGGER, CLIENT_ID, DOMAIN_ID, SERVICE_ID, JOB_STATUS];
