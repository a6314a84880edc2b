import { status as grpcStatus, Metadata } from '@grpc/grpc-js';
import { ApplicationFailure } from '@temporalio/activity';
import { ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { classifyFailure } from '../../src/failure-classes';
import { toActivityFailure, TENANT_RATE_LIMITED, UNKNOWN_FAILURE_ATTEMPTS } from '../../activities/classified';
import { RateLimitedError } from '../../src/errors';

/** Errors shaped as pg, knex, grpc-js and the AWS SDK v3 throw them. */
const pgError = (code: string, message = 'pg error') => Object.assign(new Error(message), { code, severity: 'FATAL' });
const socketError = (code: string) =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: 'connect', address: '127.0.0.1', port: 5432 });
const grpcError = (code: number) => Object.assign(new Error(`${code} grpc`), { code, details: 'grpc details', metadata: new Metadata() });
const awsError = (
  name: string,
  httpStatusCode: number | undefined,
  fault: 'client' | 'server' = httpStatusCode && httpStatusCode >= 500 ? 'server' : 'client',
) => Object.assign(new Error(`${name} message`), { name, $fault: fault, $metadata: { httpStatusCode } });

describe('failure classes', () => {
  it.each([
    ['connection refused', socketError('ECONNREFUSED')],
    ['connection reset', socketError('ECONNRESET')],
    ['57P01 admin shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['57P03 not accepting connections', pgError('57P03', 'the database system is not currently accepting connections')],
    ['53300 too many connections', pgError('53300')],
    ['08006 connection failure', pgError('08006')],
    ['a connection that ended mid-query', new Error('Connection terminated unexpectedly')],
    [
      'no pool connection in time',
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
    ],
  ])('Postgres outage: %s', (_what, err) => {
    expect(classifyFailure(err)).toMatchObject({ kind: 'outage', dependency: 'Postgres' });
  });

  it.each([
    ['40P01 deadlock', '40P01'],
    ['40001 serialization failure', '40001'],
  ])('Postgres contention: %s', (_what, code) => {
    expect(classifyFailure(pgError(code))).toMatchObject({ kind: 'contention', dependency: 'Postgres' });
  });

  it.each([
    ['UNAVAILABLE', grpcStatus.UNAVAILABLE],
    ['DEADLINE_EXCEEDED', grpcStatus.DEADLINE_EXCEEDED],
    ['RESOURCE_EXHAUSTED', grpcStatus.RESOURCE_EXHAUSTED],
  ])('Temporal outage: gRPC %s', (_what, code) => {
    expect(classifyFailure(grpcError(code))).toMatchObject({ kind: 'outage', dependency: 'Temporal' });
  });

  it('Temporal outage: an update call that ran out of time', () => {
    expect(classifyFailure(new WorkflowUpdateRPCTimeoutOrCancelledError('timed out'))).toMatchObject({
      kind: 'outage',
      dependency: 'Temporal',
    });
  });

  it('Temporal outage: a client call that failed at the service, and a gRPC error in its cause', () => {
    expect(classifyFailure(new ServiceError('Failed to start workflow'))).toMatchObject({ kind: 'outage', dependency: 'Temporal' });
    const wrapped = Object.assign(new Error('wrapped'), { cause: grpcError(grpcStatus.UNAVAILABLE) });
    expect(classifyFailure(wrapped)).toMatchObject({ kind: 'outage', dependency: 'Temporal', reason: 'grpc details' });
  });

  it('an error merely named like a Temporal one is not taken for it', () => {
    expect(classifyFailure(Object.assign(new Error('x'), { name: 'ServiceError' }))).toEqual({ kind: 'unknown' });
  });

  it('Temporal refusal that is not an outage (NOT_FOUND) is left to the caller', () => {
    expect(classifyFailure(grpcError(grpcStatus.NOT_FOUND))).toEqual({ kind: 'unknown' });
  });

  it.each([
    ['throttling', awsError('ThrottlingException', 400)],
    ['Lambda TooManyRequests', awsError('TooManyRequestsException', 429)],
    ['5xx', awsError('ServiceException', 500)],
    ['503 without a known name', awsError('SomethingNew', 503)],
    ['a function being updated', awsError('ResourceConflictException', 409)],
    ['endpoint unreachable', socketError('ECONNREFUSED')],
  ])('AWS outage: %s', (_what, err) => {
    expect(classifyFailure(err, 'AWS')).toMatchObject({ kind: 'outage', dependency: 'AWS' });
  });

  it.each([
    ['a Lambda function that does not exist', awsError('ResourceNotFoundException', 404)],
    ['an invalid payload', awsError('InvalidRequestContentException', 400)],
    ['access denied', awsError('AccessDeniedException', 403)],
  ])('AWS permanent: %s', (_what, err) => {
    expect(classifyFailure(err, 'AWS')).toMatchObject({ kind: 'permanent', dependency: 'AWS' });
  });

  it('anything else is unknown', () => {
    expect(classifyFailure(new TypeError('x is undefined'))).toEqual({ kind: 'unknown' });
    expect(classifyFailure(pgError('23505'))).toEqual({ kind: 'unknown' });
    expect(classifyFailure('a string')).toEqual({ kind: 'unknown' });
  });
});

describe('activity failures from the classes', () => {
  it('an outage stays retryable, naming the dependency', () => {
    const failure = toActivityFailure(pgError('57P03'), undefined, 50) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain('Postgres unavailable');
  });

  it('a permanent refusal is non-retryable at the first attempt', () => {
    const failure = toActivityFailure(awsError('ResourceNotFoundException', 404), 'AWS', 1) as ApplicationFailure;
    expect(failure.nonRetryable).toBe(true);
  });

  it(`an unknown error is retried, then non-retryable from attempt ${UNKNOWN_FAILURE_ATTEMPTS}`, () => {
    const bug = new TypeError('x is undefined');
    expect(toActivityFailure(bug, undefined, 1)).toBe(bug);
    expect((toActivityFailure(bug, undefined, UNKNOWN_FAILURE_ATTEMPTS) as ApplicationFailure).nonRetryable).toBe(true);
  });

  it("a step refused by its tenant's job bucket is retried when the next token is due, at any attempt", () => {
    const refused = new RateLimitedError({
      policy: 'jobs',
      holder: 'tenant acme',
      allowed: false,
      remaining: 0,
      resetSeconds: 100,
      rate: 0.01,
      burst: 2,
    });
    const failure = toActivityFailure(refused, undefined, UNKNOWN_FAILURE_ATTEMPTS + 3) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect([failure.type, failure.nonRetryable, failure.nextRetryDelay]).toEqual([TENANT_RATE_LIMITED, false, '100 seconds']);
    expect(failure.message).toBe(refused.message);
  });

  it('a failure already decided passes through', () => {
    const decided = ApplicationFailure.create({ message: 'no such model', nonRetryable: true });
    expect(toActivityFailure(decided)).toBe(decided);
  });
});
