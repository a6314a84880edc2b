import type * as repo from '../../db/services.repository';
import { shareLockActiveWithFreeze, type AssignmentRow } from '../../db/assignments.repository';
import type { DomainRow } from '../../db/domains.repository';
import type { Db } from '../../db/types';
import { UnprocessableError } from '../../errors';
import { DEFAULT_ASSIGNMENT_KEY, canaryRouteFor } from '../assignments';
import { formatFeatureProblems, type FeatureRules, type FeatureValues } from '../common';

/**
 * Share-locks the domain (assignment and feature changes of it wait) and reads its active default assignment
 * with the assigned version's freeze, in one statement.
 */
export const lockDefault = (trx: Db, domain: DomainRow) => shareLockActiveWithFreeze(trx, domain.domain_uuid, DEFAULT_ASSIGNMENT_KEY);

/** The version whose freeze governs the domain's services: that of the active default assignment (422 cases of spec part 4). */
export function governingVersion(domain: DomainRow, locked: Awaited<ReturnType<typeof lockDefault>>) {
  if (domain.status !== 'active') throw new UnprocessableError(`domain ${domain.domain_id} is not active`);
  if (!locked) throw new UnprocessableError(`domain ${domain.domain_id} has no model assigned`);
  const { version_features, ...assignment } = locked;
  return { assignment, version: { model_id: assignment.model_id, version: assignment.model_version, features: version_features } };
}

/** The service's features resolved under the freeze; a value the freeze refuses is a 422. */
export function resolveOrThrow(
  rules: FeatureRules,
  frozen: Parameters<FeatureRules['resolve']>[0],
  provided: FeatureValues,
  modelRef: string,
) {
  const problems = rules.valueProblems(frozen, provided);
  if (problems.length) throw new UnprocessableError(`feature contract mismatch with ${modelRef}: ${formatFeatureProblems(problems)}`);
  return rules.resolve(frozen, provided);
}

function inferenceInput(domain: DomainRow, service: repo.ServiceRow) {
  return {
    client_id: domain.client_id,
    domain_id: domain.domain_id,
    service_id: service.service_id,
    departure_datetime: service.departure_datetime.toISOString(),
    features: service.resolved_features,
  };
}

/**
 * The revision and input a service's inference runs with: the active canary's candidate when the service is in its
 * share and fits the candidate's freeze (features resolved under that freeze), else the primary's.
 */
export async function runTarget(rules: FeatureRules, trx: Db, domain: DomainRow, primary: AssignmentRow, service: repo.ServiceRow) {
  const canary = await canaryRouteFor(trx, rules, primary, service.service_id);
  const input = inferenceInput(domain, service);
  if (!canary) return { assignment: primary, input };
  return { assignment: canary.assignment, input: { ...input, features: rules.resolve(canary.freeze, service.provided_features) } };
}

/** The inference job of a service under the revision and input of its run target. */
export function inferenceJob(target: Awaited<ReturnType<typeof runTarget>>, domain: DomainRow, clientId: string, serviceUuid: string) {
  return {
    model_id: target.assignment.model_id,
    model_version: target.assignment.model_version,
    job_type: 'inference' as const,
    assignment_id: target.assignment.assignment_id,
    client_id: clientId,
    domain_uuid: domain.domain_uuid,
    service_uuid: serviceUuid,
    input: target.input,
  };
}
