import { FeatureRules, FeatureDefinition } from '../../../../src/domain/common/features';
import { UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import { canaryCount, selectCanary } from '../../../../src/domain/assignments/canary-selection';
import { rolloutSettings } from '../../../../src/domain/assignments/rollout-settings';
import { compareOutputs, sideReport } from '../../../../src/domain/assignments/rollout-report';
import { rolloutChain } from '../../../../src/domain/assignments/rollout-chain';
import type { AssignmentRow } from '../../../../src/db/assignments.repository';
import type { ShadowPair } from '../../../../src/db/rollouts.repository';

const rules = new FeatureRules(new UserSchemaCompiler());
const freeze: FeatureDefinition[] = [{ name: 'seats', json_schema: { type: 'integer', maximum: 400 }, mandatory: true }];
const ranked = Array.from({ length: 10 }, (_, i) => ({
  service_id: `s${i}`,
  service_uuid: `u${i}`,
  provided_features: { seats: i === 1 ? 450 : 100 },
}));

describe('canary selection', () => {
  it('takes the share of the services rounded up, so any share above 0 takes one', () => {
    expect([0, 1, 10, 30, 99, 100].map((share) => canaryCount(share, 20))).toEqual([0, 1, 2, 6, 20, 20]);
  });

  it('keeps the services of a smaller share when the share grows', () => {
    const small = selectCanary(rules, ranked, 30, freeze);
    const large = selectCanary(rules, ranked, 70, freeze);
    expect(large.services.slice(0, small.services.length)).toEqual(small.services);
  });

  it('leaves a service whose features do not fit the freeze on the primary, with the reason', () => {
    const selection = selectCanary(rules, ranked, 30, freeze);
    expect(selection.services).toEqual(['s0', 's2']);
    expect(selection.blocked).toEqual([{ service_id: 's1', feature: 'seats', value: 450, reason: expect.any(String) }]);
  });
});

describe('rollout settings', () => {
  it('names the field of a share out of range, a tolerance that is not a number, and a primary key that is the own key', () => {
    expect(() => rolloutSettings('canary', 'c', { share: 100.5 })).toThrow(/settings\.share/);
    expect(() => rolloutSettings('shadow', 's', { tolerances: { eta: '5' } })).toThrow(/settings\.tolerances\.eta/);
    expect(() => rolloutSettings('shadow', 's', { tolerance: null })).toThrow(/settings\.tolerance\b/);
    expect(() => rolloutSettings('canary', 'c', { share: 5, guardrail: { max_failure_rate: 0.1, min_jobs: 1.5 } })).toThrow(
      /settings\.guardrail\.min_jobs/,
    );
    expect(() => rolloutSettings('canary', 'default', { share: 5 })).toThrow(/settings\.primary_key/);
  });

  it('fills in the primary key and keeps other settings', () => {
    expect(rolloutSettings('canary', 'c', { share: 0, note: 'x' })).toEqual({ share: 0, note: 'x', primary_key: 'default' });
  });
});

describe('rollout report', () => {
  const pair = (n: number, primary: unknown, shadow: unknown, shadowStatus = 'success'): ShadowPair =>
    ({
      primary_job_id: `p${n}`,
      shadow_job_id: `s${n}`,
      primary_status: 'success',
      shadow_status: shadowStatus,
      primary_output: primary,
      shadow_output: shadow,
    }) as ShadowPair;

  it('counts exact matches and the share of each numeric field within its tolerance over the pairs that both succeeded', () => {
    const agreement = compareOutputs(
      [
        pair(1, { eta: { minutes: 10 }, label: 'a' }, { label: 'a', eta: { minutes: 10 } }),
        pair(2, { eta: { minutes: 10 }, label: 'a' }, { eta: { minutes: 12 }, label: 'a' }),
        pair(3, { eta: { minutes: 10 }, label: 'a' }, { eta: { minutes: 20 }, label: 'b' }),
        pair(4, { eta: { minutes: 10 } }, {}, 'failure'),
      ],
      0,
      { 'eta.minutes': 2 },
    );
    expect(agreement).toMatchObject({ pairs: 4, compared: 3, exact_matches: 1, exact_match_rate: 0.3333 });
    expect(agreement.fields).toEqual([{ field: 'eta.minutes', tolerance: 2, compared: 3, within_tolerance: 2, share: 0.6667 }]);
    expect(agreement.disagreements.map((d) => [d.primary_job_id, d.fields])).toEqual([
      ['p2', []],
      ['p3', ['eta.minutes']],
    ]);
  });

  it('counts timed-out jobs as failed and leaves cancelled ones out of the rates', () => {
    expect(sideReport({ counts: { success: 3, failure: 1, timed_out: 1, cancelled: 2 }, p50_ms: 5, p95_ms: 9 })).toMatchObject({
      jobs: 7,
      finished: 5,
      failed: 2,
      success_rate: 0.6,
      failure_rate: 0.4,
    });
  });

  it('follows a rollout back through share changes, not past a rollback', () => {
    const rev = (id: string, extra: Partial<AssignmentRow> = {}) =>
      ({
        assignment_id: id,
        role: 'canary',
        model_id: 'm',
        model_version: '2',
        activated_at: new Date(),
        status_reason: null,
        ...extra,
      }) as AssignmentRow;
    const chain = rolloutChain([rev('r4'), rev('r3'), rev('r2', { status_reason: 'rolled back' }), rev('r1')]);
    expect(chain.map((r) => r.assignment_id)).toEqual(['r4', 'r3']);
  });
});
