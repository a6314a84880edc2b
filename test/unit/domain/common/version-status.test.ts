import { canMoveVersion, runRefusal, VERSION_TRANSITIONS } from '../../../../src/domain/common/version-status';

describe('version status transitions', () => {
  it.each([
    ['active', 'deprecated'],
    ['active', 'archived'],
    ['deprecated', 'active'],
    ['deprecated', 'archived'],
    ['archived', 'deprecated'],
    ['failed', 'archived'],
  ] as const)('allows %s → %s', (from, to) => expect(canMoveVersion(from, to)).toBe(true));

  it.each([
    ['pending', 'deprecated'],
    ['training', 'archived'],
    ['archived', 'training'],
    ['deprecated', 'pending'],
  ] as const)('refuses %s → %s', (from, to) => expect(canMoveVersion(from, to)).toBe(false));

  it('names a move for every status', () => {
    for (const targets of Object.values(VERSION_TRANSITIONS)) expect(targets.length).toBeGreaterThan(0);
  });
});

describe('where a version runs', () => {
  it('runs an active version anywhere', () => {
    expect(runRefusal('m@1', 'active', 'assigned')).toBeUndefined();
    expect(runRefusal('m@1', 'active', 'direct')).toBeUndefined();
  });
  it('runs a deprecated version only where assigned', () => {
    expect(runRefusal('m@1', 'deprecated', 'assigned')).toBeUndefined();
    expect(runRefusal('m@1', 'deprecated', 'direct')).toContain('m@1 is deprecated');
  });
  it('runs an archived, pending or failed version nowhere', () => {
    for (const status of ['archived', 'pending', 'failed', 'training'] as const) {
      expect(runRefusal('m@1', status, 'assigned')).toContain(`m@1 is ${status}`);
    }
  });
});
