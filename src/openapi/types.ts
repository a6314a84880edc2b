import type { operations, components } from '../../client/schema';

/**
 * Request types of each operation, derived from the OpenAPI document the service serves (the same schemas
 * ajv validates against; `client/schema.d.ts` is generated from it and kept in step by a test).
 */
export type OperationId = keyof operations;
export type Schemas = components['schemas'];

type Op<O extends OperationId> = operations[O];

/** The validated JSON body of an operation; `undefined` for operations without one. */
export type RequestBody<O extends OperationId> =
  Op<O> extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : Op<O> extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B | undefined
      : undefined;

/** The path parameters of an operation, validated against their patterns. */
export type PathParams<O extends OperationId> =
  Op<O> extends { parameters: { path: infer P } } ? (P extends object ? P : Record<string, never>) : Record<string, never>;

/** The query parameters of an operation with the document's types (integers as numbers), validated and coerced. */
export type QueryParams<O extends OperationId> =
  Op<O> extends { parameters: { query?: infer Q } }
    ? [NonNullable<Q>] extends [never]
      ? Record<string, never>
      : NonNullable<Q>
    : Record<string, never>;

type SuccessCodes = 200 | 201 | 202;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body of an operation's success answers (200, 201, 202); `never` when it answers none with a body. */
export type ResponseBody<O extends OperationId> =
  Op<O> extends { responses: infer R } ? { [C in keyof R]: C extends SuccessCodes ? JsonOf<R[C]> : never }[keyof R] : never;
