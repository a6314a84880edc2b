import { runRefusal } from '../common';
import type { Db } from '../../db/types';
import type { AssignmentRow } from '../../db/assignments.repository';
import { rankedServices, activeChallengers, type RankedService } from '../../db/rollouts.repository';
import { findVersion } from '../../db/models.repository';
import type { FeatureDefinition, FeatureRules } from '../common';
import { freezeIncompatibilities } from '../common';
import { storedRolloutSettings } from './rollout-settings';

/** A service of the canary's share that stays on the primary: its features do not fit the candidate's freeze. */
export interface BlockedService {
  service_id: string;
  feature: string;
  value: unknown;
  reason: string;
}

export interface CanarySelection {
  share: number;
  /** Services that have not departed: what the share is of. */
  services_total: number;
  /** How many of them the share takes (rounded up), the blocked ones included. */
  selected: number;
  /** The services that run the candidate, in canary order. */
  services: string[];
  blocked: BlockedService[];
}

/** How many of `total` services a share (0–100) takes: rounded up, so any share above 0 takes at least one. */
export function canaryCount(share: number, total: number): number {
  return Math.max(0, Math.min(total, Math.ceil((share * total) / 100 - 1e-9)));
}

/**
 * The first `canaryCount` services in canary order (rankedServices), less those whose provided features do not fit
 * the candidate's freeze. Raising the share only appends services: the order does not depend on it.
 */
export function selectCanary(rules: FeatureRules, ranked: RankedService[], share: number, freeze: FeatureDefinition[]): CanarySelection {
  const selected = canaryCount(share, ranked.length);
  const services: string[] = [];
  const blocked: BlockedService[] = [];
  for (const service of ranked.slice(0, selected)) {
    const issues = freezeIncompatibilities(rules, freeze, service.provided_features);
    if (issues.length === 0) services.push(service.service_id);
    for (const issue of issues)
      blocked.push({ service_id: service.service_id, feature: issue.feature, value: issue.value, reason: issue.message });
  }
  return { share, services_total: ranked.length, selected, services, blocked };
}

/** The canary revision a service's job runs instead of the primary, and the candidate's freeze. */
export interface CanaryRoute {
  assignment: AssignmentRow;
  freeze: FeatureDefinition[];
}

/**
 * Where a service's inference job under the domain's primary revision runs: on the candidate of the active canary
 * challenging that key when the service is in its share and fits the candidate's freeze, else (undefined) on the
 * primary. A candidate version that is not active leaves every service on the primary.
 */
export async function canaryRouteFor(
  db: Db,
  rules: FeatureRules,
  primary: AssignmentRow,
  serviceId: string,
): Promise<CanaryRoute | undefined> {
  if (primary.service_uuid) return undefined;
  const [canary] = await activeChallengers(db, primary.domain_uuid, primary.assignment_key, 'canary');
  if (!canary) return undefined;
  const version = await findVersion(db, canary.model_id, canary.model_version);
  if (!version || runRefusal(canary.model_version, version.status, 'assigned')) return undefined;
  const share = storedRolloutSettings(canary.settings).share ?? 0;
  const selection = selectCanary(rules, await rankedServices(db, primary.domain_uuid), share, version.features);
  return selection.services.includes(serviceId) ? { assignment: canary, freeze: version.features } : undefined;
}
