export { parseJob, InvalidPayload, type Job } from './job';
export { MemoryStore, type DedupStore } from './store';
export { reportCompletion, CompletionRefused, type Report, type ReportOptions, type ReportOutcome } from './report';
export { createJobHandler, type JobFunction, type KitOptions, type HandleResult } from './handler';
export { lambdaHandler } from './lambda';
export { httpHandler, verifySignature, type HttpKitOptions } from './http';
