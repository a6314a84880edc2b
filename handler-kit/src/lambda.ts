import { createJobHandler, type JobFunction, type KitOptions, type HandleResult } from './handler';

/**
 * An AWS Lambda handler (`export const handler = lambdaHandler(fn)`) for the service's asynchronous invoke: the event
 * is the job. A duplicate delivery returns at once; a report that could not be made throws, so Lambda retries it.
 */
export function lambdaHandler(fn: JobFunction, options: KitOptions = {}): (event: unknown) => Promise<HandleResult> {
  const handle = createJobHandler(fn, options);
  return (event) => handle(event);
}
