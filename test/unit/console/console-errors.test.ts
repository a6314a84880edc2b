import { ApiError, blockingServicesOf, describeFailure } from '../../../console/src/errors';

// The console's words for failed answers (console/src/errors.ts): never a blank page, never a bare status code.
describe('console failure messages', () => {
  it.each([
    [401, 'token expired', 'Your sign-in is no longer accepted; sign in again: token expired.'],
    [403, 'missing permission manage_domains', 'This token may not do that: missing permission manage_domains.'],
    [404, 'no domain flights', 'Not found: no domain flights.'],
  ])('names the kind of a %i and keeps the API message', (status, message, expected) => {
    expect(describeFailure(status, { success: false, message })).toBe(expected);
  });

  it('says when to retry a 429 or a 503, from Retry-After', () => {
    expect(describeFailure(429, { success: false, message: 'request limit reached' }, '3')).toBe(
      'Too many requests: request limit reached. Try again in 3 s.',
    );
    expect(describeFailure(503, { success: false, message: 'Temporal is unavailable' }, '5')).toBe(
      'The service is unavailable for the moment: Temporal is unavailable. Try again in 5 s.',
    );
  });

  it('reads a 409 and a 422 AssignBlockedErrorResponse, and the blocking services of the latter', () => {
    expect(describeFailure(409, { success: false, message: 'the job is running' })).toBe(
      'Conflict with the current state: the job is running.',
    );
    const blocked = {
      error: 'services block the assignment',
      blocking_services: [{ service_id: 'svc-1', feature: 'cabin', value: 'business' }],
    };
    expect(describeFailure(422, blocked)).toBe('The change was refused: services block the assignment.');
    expect(blockingServicesOf(new ApiError(422, 'x', blocked))).toEqual(blocked.blocking_services);
  });

  it('still says something for a status or body it does not know', () => {
    expect(describeFailure(418, 'teapot')).toBe('The API answered 418.');
    expect(describeFailure(502, undefined)).toBe('The service failed.');
  });
});
