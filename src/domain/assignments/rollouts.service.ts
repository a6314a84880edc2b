import type { Knex } from 'knex';
import * as repo from '../../db/assignments.repository';
import * as rollouts from '../../db/rollouts.repository';
import { lockDomain, type DomainRow } from '../../db/domains.repository';
import type { Db } from '../../db/types';
import { requireDomain, requireAssignableVersion } from '../common';
import type { FeatureRules } from '../common';
import type { AssignmentsService } from './assignments.service';
import { selectCanary } from './canary-selection';
import { isRolloutRole, storedRolloutSettings } from './rollout-settings';
import { rolloutChain } from './rollout-chain';
import { compareOutputs, sideReport } from './rollout-report';
import { toAssignment } from '../common';
import type { Outbox } from '../webhooks';
import { inChangeTransaction, UNATTRIBUTED, type ChangeContext } from '../common';
import { inTransaction } from '../../db/transaction';
import { NotFoundError, UnprocessableError } from '../../errors';

/** At most this many shadow pairs are compared in one report (the oldest first). */
export const MAX_COMPARED_PAIRS = 10_000;

/** The key's active revision, which must be a canary or shadow (`role` narrows it to one); 404 / 422 otherwise. */
async function requireActiveRollout(db: Db, domain: DomainRow, key: string, role?: 'canary' | 'shadow') {
  const scope = { domainUuid: domain.domain_uuid, domainId: domain.domain_id };
  const row = await repo.findActive(db, scope, key);
  if (!row) throw new NotFoundError(`no active assignment under key ${key}`);
  if (role ? row.role !== role : !isRolloutRole(row.role)) {
    throw new UnprocessableError(`assignment ${key} has role ${JSON.stringify(row.role)}, not ${role ?? 'canary or shadow'}`);
  }
  return { row, scope, settings: storedRolloutSettings(row.settings) };
}

/** The services of the domain in the canary's share, and those of the share its candidate's freeze blocks. */
async function selection(rules: FeatureRules, db: Db, canary: repo.AssignmentRow) {
  const version = await requireAssignableVersion(db, canary.model_id, canary.model_version);
  const share = storedRolloutSettings(canary.settings).share ?? 0;
  return selectCanary(rules, await rollouts.rankedServices(db, canary.domain_uuid), share, version.features);
}

/** The comparison report of the rollout under `key`: both sides' jobs, rates and latencies; for a shadow, output agreement. */
async function rolloutReport(knex: Knex, domain: DomainRow, key: string) {
  const chain = rolloutChain(await rollouts.revisionsOfKey(knex, domain.domain_uuid, key));
  const latest = chain[0];
  if (!latest) throw new NotFoundError(`no assignment under key ${key}`);
  if (!isRolloutRole(latest.role))
    throw new UnprocessableError(`assignment ${key} has role ${JSON.stringify(latest.role)}, not canary or shadow`);
  const settings = storedRolloutSettings(latest.settings);
  const ids = chain.map((r) => r.assignment_id);
  const since = chain[chain.length - 1].activated_at!;
  const until = latest.archived_at;
  const candidate = sideReport(await rollouts.sideStats(knex, { domainUuid: domain.domain_uuid, assignmentIds: ids }));
  const primaryIds = (await rollouts.revisionsOfKey(knex, domain.domain_uuid, settings.primary_key)).map((r) => r.assignment_id);
  const primary = sideReport(
    latest.role === 'shadow'
      ? await rollouts.sideStats(knex, { domainUuid: domain.domain_uuid, assignmentIds: ids, shadowedBy: true })
      : await rollouts.sideStats(knex, { domainUuid: domain.domain_uuid, assignmentIds: primaryIds, since, until }),
  );
  const agreement =
    latest.role === 'shadow'
      ? compareOutputs(await rollouts.shadowPairs(knex, ids, MAX_COMPARED_PAIRS), settings.tolerance, settings.tolerances)
      : undefined;
  return {
    assignment_key: key,
    role: latest.role,
    status: latest.status,
    status_reason: latest.status_reason ?? null,
    primary_key: settings.primary_key,
    model_id: latest.model_id,
    model_version: latest.model_version,
    revisions: ids,
    since: since.toISOString(),
    until: until ? until.toISOString() : null,
    primary,
    candidate,
    ...(agreement ? { agreement } : {}),
  };
}

/**
 * Progressive delivery (docs/progressive-delivery.md): which services a canary runs the candidate for, the comparison
 * report of a canary or shadow, promotion of the candidate to primary, and rollback.
 */
export function createRolloutsService(deps: { knex: Knex; rules: FeatureRules; assignments: AssignmentsService; outbox: Outbox }) {
  const { knex, rules, assignments, outbox } = deps;

  return {
    /** GET .../assignments/{key}/canary: the services that run the candidate, and the blocked ones with the reason. */
    async canaryServices(clientId: string, domainId: string, key: string) {
      const domain = await requireDomain(knex, clientId, domainId);
      const { row, settings } = await requireActiveRollout(knex, domain, key, 'canary');
      return {
        assignment_key: key,
        primary_key: settings.primary_key,
        model_id: row.model_id,
        model_version: row.model_version,
        ...(await selection(rules, knex, row)),
      };
    },

    /** GET .../assignments/{key}/report: both sides' jobs, rates and latencies; for a shadow, output agreement. */
    async report(clientId: string, domainId: string, key: string) {
      const domain = await requireDomain(knex, clientId, domainId);
      return rolloutReport(knex, domain, key);
    },

    /**
     * POST .../assignments/{key}/promote: in one transaction the candidate becomes the primary under its primary key
     * (an upsert of that key, with the upsert's freeze check and 422 on the default key) and the canary or shadow is
     * archived (`status_reason: promoted`). A dry run answers the same, or the same 422, and changes nothing.
     */
    async promote(clientId: string, domainId: string, key: string, change: ChangeContext = UNATTRIBUTED) {
      const domain = await requireDomain(knex, clientId, domainId);
      return inChangeTransaction(knex, change, async (trx) => {
        await lockDomain(trx, domain.domain_uuid);
        const { row, scope, settings } = await requireActiveRollout(trx, domain, key);
        const primary = await repo.findActive(trx, scope, settings.primary_key);
        if (!primary) throw new UnprocessableError(`no active assignment under the primary key ${settings.primary_key}`);
        const ranked = await rollouts.rankedServices(trx, domain.domain_uuid);
        const already = row.role === 'canary' ? (await selection(rules, trx, row)).services : [];
        const body = {
          model_id: row.model_id,
          model_version: row.model_version,
          role: primary.role,
          settings: primary.settings,
          metadata: primary.metadata,
        };
        const {
          compatibility: _report,
          preview: _preview,
          ...promoted
        } = await assignments.upsertDomainIn(trx, domain, settings.primary_key, body, change);
        const archived = (await rollouts.archiveWithReason(trx, row.assignment_id, change.actor, 'promoted'))!;
        await outbox(trx).assignmentChanged(archived, scope); // the webhook event's outbox row commits with the change
        return {
          ...(change.dryRun ? { dry_run: true as const } : {}),
          primary: promoted,
          archived: toAssignment(archived, scope),
          services_moved: ranked.map((s) => s.service_id).filter((id) => !already.includes(id)),
          services_already_on_candidate: already,
        };
      });
    },

    /** POST .../assignments/{key}/rollback: archives the canary or shadow with the reason and announces it. */
    async rollback(clientId: string, domainId: string, key: string, reason: string | undefined, change: ChangeContext = UNATTRIBUTED) {
      const domain = await requireDomain(knex, clientId, domainId);
      return inTransaction(knex, async (trx) => {
        await lockDomain(trx, domain.domain_uuid);
        const { row, scope } = await requireActiveRollout(trx, domain, key);
        const why = `rolled back${reason ? `: ${reason}` : ''}`;
        const archived = (await rollouts.archiveWithReason(trx, row.assignment_id, change.actor, why))!;
        await outbox(trx).assignmentRolledBack(archived, scope, { reason: why, automatic: false });
        return toAssignment(archived, scope);
      });
    },
  };
}

export type RolloutsService = ReturnType<typeof createRolloutsService>;
