/** Any activity: whatever its parameters (`never[]` accepts every parameter list), it answers a promise. */
type ActivityFunction = (...args: never[]) => Promise<unknown>;

/** Each activity of `A` as a jest mock with that activity's own parameters and result. */
export type ActivityMocks<A extends Record<keyof A, ActivityFunction>> = { [K in keyof A]: jest.Mock<ReturnType<A[K]>, Parameters<A[K]>> };

/**
 * Mocks for a worker's activities, typed from the activities themselves (`Activities`, `ScheduleActivities`, …):
 * a default per activity, an override for the ones a test cares about, both checked against the real signatures,
 * so a renamed activity or a changed result breaks the test at compile time rather than at run time.
 */
export function mockActivities<A extends Record<keyof A, ActivityFunction>>(defaults: A, overrides: Partial<A> = {}): ActivityMocks<A> {
  const mocks = {} as ActivityMocks<A>;
  for (const name of Object.keys(defaults) as (keyof A)[]) mocks[name] = mockOf(overrides[name] ?? defaults[name]);
  return mocks;
}

function mockOf<F extends ActivityFunction>(fn: F): jest.Mock<ReturnType<F>, Parameters<F>> {
  return jest.fn((...args: Parameters<F>) => fn(...args) as ReturnType<F>);
}
