import type { Query } from '@tanstack/react-query';
import { refreshInterval } from '../../../console/src/live';

// How often the console reads a page's data again (console/src/live.ts): fast while it moves, slower while it stands still.
const queryWith = (state: { status: 'success' | 'error' | 'pending'; data: unknown }) => ({ state }) as unknown as Query;

describe('console refresh interval', () => {
  afterEach(() => jest.useRealTimers());

  it('reads every 2 s while the answer changes', () => {
    const query = queryWith({ status: 'success', data: { n: 1 } });
    expect(refreshInterval(query)).toBe(2_000);
    query.state.data = { n: 2 };
    expect(refreshInterval(query)).toBe(2_000);
  });

  it('backs off to half the time the answer has stood still, at most 30 s', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const query = queryWith({ status: 'success', data: { n: 1 } });
    expect(refreshInterval(query)).toBe(2_000);
    jest.setSystemTime(1_000_000 + 20_000);
    expect(refreshInterval(query)).toBe(10_000);
    jest.setSystemTime(1_000_000 + 600_000);
    expect(refreshInterval(query)).toBe(30_000);
  });

  it('waits 30 s after an error, so an outage is not hammered', () => {
    expect(refreshInterval(queryWith({ status: 'error', data: undefined }))).toBe(30_000);
  });
});
