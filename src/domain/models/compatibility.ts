import type { Schemas } from '../../openapi/types';
import * as assignmentsRepo from '../../db/assignments.repository';
import { findVersion, type HandlerContracts, type VersionRow } from '../../db/models.repository';
import { subscriptionsTargeting, type SubscriptionRow } from '../../db/subscriptions.repository';
import { getFeatureDefinitions } from '../../db/domains.repository';
import type { Db } from '../../db/types';
import type { UserSchemaCompiler } from '../common';
import { diffSchemas, isBreaking, type SchemaChange } from '../common';
import { featureContractMismatches, freezeAsSchema, type FeatureMismatch } from '../common';
import { shows } from '../common';

/** One active assignment of the model, and whether the change keeps it working. */
export interface AssignmentCompatibilityEntry {
  assignment_id: string;
  client_id: string;
  domain_id: string;
  service_id: string | null;
  assignment_key: string;
  model_version: string;
  compatible: boolean;
  changes: SchemaChange[];
  feature_mismatches: FeatureMismatch[];
}

/** One subscription whose target action runs the model, and whether its payload still fits. */
export interface SubscriptionCompatibilityEntry {
  subscription_id: string;
  source_model_id: string;
  input_source: SubscriptionRow['input_source'];
  status: SubscriptionRow['status'];
  compatible: boolean;
  reasons: string[];
}

/** What a new version or new contracts would break, for every active assignment and stored subscription payload. */
export type CompatibilityReport = Schemas['CompatibilityReport'];

/** A version about to be assigned: against the revision it replaces and against the domain's feature definitions. */
export type AssignmentCompatibility = Schemas['AssignmentCompatibility'];

const INPUT_SCHEMAS = ['inference', 'training'] as const;

/** Where an assignment entry of a report points: the revision, its scope and the version it binds. */
function assignmentRef(a: assignmentsRepo.ModelAssignmentRow) {
  const { assignment_id, client_id, domain_id, service_id, assignment_key, model_version } = a;
  return { assignment_id, client_id, domain_id, service_id, assignment_key, model_version };
}

/**
 * The report as a caller bound to tenants may see it: only their tenants' assignments are listed. `compatible`
 * still judges every assignment, so a registry change that would break another tenant is not shown as safe.
 */
export function narrowReport(report: CompatibilityReport, visible: string[] | undefined): CompatibilityReport {
  if (visible === undefined) return report;
  return { ...report, assignments: report.assignments.filter((a) => shows(visible, a.client_id)) };
}

/** How a subscription's payload fares against the target's contracts: a stored input is validated, a trigger output judged by the changes. */
function subscriptionEntry(
  schemas: UserSchemaCompiler,
  sub: SubscriptionRow,
  contracts: HandlerContracts | null,
  inferenceChanges: SchemaChange[],
) {
  const schema = contracts?.inference?.input_schema;
  const reasons: string[] = [];
  if (sub.input_source === 'stored') {
    const problem = schema === undefined ? undefined : schemas.validate(schema, sub.input ?? {});
    if (problem) {
      reasons.push(`stored input no longer satisfies the inference input_schema: ${problem}`);
      reasons.push(...inferenceChanges.filter((c) => c.breaking).map((c) => c.reason));
    }
  } else {
    // The payload is the trigger's output, known only when it fires: any breaking change may reject it.
    reasons.push(...inferenceChanges.filter((c) => c.breaking).map((c) => `${c.reason} (input comes from the trigger output)`));
  }
  return {
    subscription_id: sub.subscription_id,
    source_model_id: sub.source_model_id,
    input_source: sub.input_source,
    status: sub.status,
    compatible: reasons.length === 0,
    reasons,
  };
}

/** The report, compatible when every assignment and subscription is. */
function report(
  modelId: string,
  subject: CompatibilityReport['subject'],
  modelVersion: string | null,
  changes: SchemaChange[],
  assignments: AssignmentCompatibilityEntry[],
  subscriptions: SubscriptionCompatibilityEntry[],
): CompatibilityReport {
  const compatible = assignments.every((a) => a.compatible) && subscriptions.every((s) => s.compatible);
  return { model_id: modelId, subject, model_version: modelVersion, compatible, changes, assignments, subscriptions };
}

export function createCompatibility(deps: { schemas: UserSchemaCompiler }) {
  const { schemas } = deps;

  return {
    /** A version (new, or about to be assigned everywhere) against each active assignment's version of the model. */
    async forVersion(db: Db, candidate: VersionRow, contracts: HandlerContracts | null): Promise<CompatibilityReport> {
      const active = await assignmentsRepo.activeAssignmentsOfModel(db, candidate.model_id);
      const freezes = new Map<string, VersionRow | undefined>();
      const entries: AssignmentCompatibilityEntry[] = [];
      for (const a of active) {
        if (!freezes.has(a.model_version)) freezes.set(a.model_version, await findVersion(db, a.model_id, a.model_version));
        const assigned = freezes.get(a.model_version);
        const changes = assigned ? diffSchemas(freezeAsSchema(assigned.features), freezeAsSchema(candidate.features)) : [];
        const mismatches = featureContractMismatches(await getFeatureDefinitions(db, a.domain_uuid), candidate.features);
        entries.push({
          ...assignmentRef(a),
          compatible: !isBreaking(changes) && mismatches.length === 0,
          changes,
          feature_mismatches: mismatches,
        });
      }
      const subs = (await subscriptionsTargeting(db, candidate.model_id)).map((s) => subscriptionEntry(schemas, s, contracts, []));
      return report(candidate.model_id, 'version', candidate.version, [], entries, subs);
    },

    /** New handler contracts against the current ones: every active assignment and every subscription targeting the model. */
    async forContracts(
      db: Db,
      modelId: string,
      before: HandlerContracts | null,
      after: HandlerContracts | null,
    ): Promise<CompatibilityReport> {
      const perKind = Object.fromEntries(
        INPUT_SCHEMAS.map((kind) => [
          kind,
          diffSchemas(before?.[kind]?.input_schema ?? {}, after?.[kind]?.input_schema ?? {}, `${kind}.input_schema`),
        ]),
      ) as Record<(typeof INPUT_SCHEMAS)[number], SchemaChange[]>;
      // Assignments run inference, so the inference input schema decides for them.
      const entries = (await assignmentsRepo.activeAssignmentsOfModel(db, modelId)).map((a) => ({
        ...assignmentRef(a),
        compatible: !isBreaking(perKind.inference),
        changes: perKind.inference,
        feature_mismatches: [],
      }));
      const subs = (await subscriptionsTargeting(db, modelId)).map((s) => subscriptionEntry(schemas, s, after, perKind.inference));
      return report(modelId, 'contracts', null, [...perKind.inference, ...perKind.training], entries, subs);
    },

    /** A version about to be assigned under `key` in `scope` (call before the new revision is written). */
    async forAssignment(db: Db, scope: assignmentsRepo.Scope, key: string, version: VersionRow): Promise<AssignmentCompatibility> {
      const previous = await assignmentsRepo.findActive(db, scope, key);
      const replaced = previous ? await findVersion(db, previous.model_id, previous.model_version) : undefined;
      const changes = replaced ? diffSchemas(freezeAsSchema(replaced.features), freezeAsSchema(version.features)) : [];
      const mismatches = featureContractMismatches(await getFeatureDefinitions(db, scope.domainUuid), version.features);
      return {
        compatible: !isBreaking(changes) && mismatches.length === 0,
        replaces: previous ? { model_id: previous.model_id, model_version: previous.model_version } : null,
        changes,
        feature_mismatches: mismatches,
      };
    },
  };
}

export type Compatibility = ReturnType<typeof createCompatibility>;
