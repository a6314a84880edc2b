import type { Schemas } from '../../openapi/types';
import { canonicalJson } from '../../canonical-json';
import type { ShadowPair } from '../../db/rollouts.repository';

/** At most this many disagreeing pairs are listed in a report (the counts cover every pair). */
export const MAX_LISTED_DISAGREEMENTS = 100;

/** One side of a report: the document's `RolloutSide`. */
export type SideReport = Schemas['RolloutSide'];

const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10000) / 10000);

/** One side's counts per status and latency percentiles as the report shows them. */
export function sideReport(stats: { counts: Record<string, number>; p50_ms: number | null; p95_ms: number | null }): SideReport {
  const n = (status: string) => stats.counts[status] ?? 0;
  const succeeded = n('success');
  const failed = n('failure') + n('timed_out');
  const finished = succeeded + failed;
  return {
    jobs: Object.values(stats.counts).reduce((a, b) => a + b, 0),
    pending: n('pending'),
    running: n('running'),
    succeeded,
    failed,
    cancelled: n('cancelled'),
    finished,
    success_rate: rate(succeeded, finished),
    failure_rate: rate(failed, finished),
    latency_ms: { p50: stats.p50_ms, p95: stats.p95_ms },
  };
}

/** The numeric leaves of an output by dotted path (`scores.0`, `eta.minutes`). */
function numericLeaves(value: unknown, path = '', out = new Map<string, number>()): Map<string, number> {
  if (typeof value === 'number' && Number.isFinite(value)) out.set(path, value);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) numericLeaves(v, path ? `${path}.${k}` : k, out);
  }
  return out;
}

export interface FieldAgreement {
  field: string;
  tolerance: number;
  /** Pairs in which the primary or the shadow has this numeric field. */
  compared: number;
  /** Of those, pairs in which both have it and they differ by at most the tolerance. */
  within_tolerance: number;
  share: number | null;
}

export interface Disagreement {
  primary_job_id: string;
  shadow_job_id: string;
  primary_job: string;
  shadow_job: string;
  /** Numeric fields out of tolerance (or present on one side only). */
  fields: string[];
}

export interface Agreement {
  /** Shadow jobs with their primary job. */
  pairs: number;
  /** Pairs in which both jobs succeeded: the ones whose outputs are compared. */
  compared: number;
  exact_matches: number;
  exact_match_rate: number | null;
  fields: FieldAgreement[];
  disagreements: Disagreement[];
  disagreements_truncated: boolean;
}

/**
 * Output agreement of shadow pairs: exact JSON equality (canonical, so key order does not matter), and per numeric
 * field the share of pairs within the tolerance (`tolerances[field]`, else `tolerance`, else 0).
 */
export function compareOutputs(pairs: ShadowPair[], tolerance = 0, tolerances: Record<string, number> = {}): Agreement {
  const fields = new Map<string, { compared: number; within: number }>();
  const disagreements: Disagreement[] = [];
  let compared = 0;
  let exact = 0;
  let disagreeing = 0;
  for (const pair of pairs) {
    if (pair.primary_status !== 'success' || pair.shadow_status !== 'success') continue;
    compared++;
    const same = canonicalJson(pair.primary_output ?? {}) === canonicalJson(pair.shadow_output ?? {});
    if (same) exact++;
    const primary = numericLeaves(pair.primary_output ?? {});
    const shadow = numericLeaves(pair.shadow_output ?? {});
    const off: string[] = [];
    for (const field of new Set([...primary.keys(), ...shadow.keys()])) {
      const counts = fields.get(field) ?? { compared: 0, within: 0 };
      fields.set(field, counts);
      counts.compared++;
      const a = primary.get(field);
      const b = shadow.get(field);
      if (a !== undefined && b !== undefined && Math.abs(a - b) <= (tolerances[field] ?? tolerance)) counts.within++;
      else off.push(field);
    }
    if (same) continue;
    disagreeing++;
    if (disagreements.length < MAX_LISTED_DISAGREEMENTS) {
      disagreements.push({
        primary_job_id: pair.primary_job_id,
        shadow_job_id: pair.shadow_job_id,
        primary_job: `/v2/jobs/${pair.primary_job_id}`,
        shadow_job: `/v2/jobs/${pair.shadow_job_id}`,
        fields: off,
      });
    }
  }
  return {
    pairs: pairs.length,
    compared,
    exact_matches: exact,
    exact_match_rate: rate(exact, compared),
    fields: [...fields.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([field, c]) => ({
        field,
        tolerance: tolerances[field] ?? tolerance,
        compared: c.compared,
        within_tolerance: c.within,
        share: rate(c.within, c.compared),
      })),
    disagreements,
    disagreements_truncated: disagreeing > disagreements.length,
  };
}
