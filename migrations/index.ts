import type { Knex } from 'knex';
import * as initialSchema from './20261122000000_initial_schema';
import * as jobWorkflowRun from './20261123000000_job_workflow_run';
import * as webhooks from './20261201000000_webhooks';
import * as jobLineageAndSearch from './20261210000000_job_lineage_and_search';
import * as changeSafety from './20261220000000_change_safety';
import * as unconfirmedOutcomes from './20261226000000_unconfirmed_outcomes';
import * as schedules from './20261228000000_schedules';
import * as tenantLimits from './20261230000000_tenant_limits';
import { sealedWebhookSecrets } from './20261231000000_sealed_webhook_secrets';
import * as progressiveDelivery from './20270105000000_progressive_delivery';
import * as httpHandlerSecret from './20270110000000_http_handler_secret';
import * as oneActiveSubscription from './20270120000000_one_active_subscription';
import * as versionArtifacts from './20270121000000_version_artifacts';
import * as versionLifecycle from './20270122000000_version_lifecycle';
import * as modelAliases from './20270123000000_model_aliases';
import * as assignmentsFollowAliases from './20270124000000_assignments_follow_aliases';
import * as registryTagsAndSearch from './20270125460000_registry_tags_and_search';
import type { SecretBox } from '../src/secrets/secret-box';

/**
 * Migrations listed explicitly, so the same list runs from ts (tests) and compiled js (production). `secrets`: the
 * box of SECRET_KEYS, for the migrations that seal or open stored secrets.
 */
const migrations = (secrets: SecretBox | undefined): Record<string, Knex.Migration> => ({
  '20261122000000_initial_schema': initialSchema,
  '20261123000000_job_workflow_run': jobWorkflowRun,
  '20261201000000_webhooks': webhooks,
  '20261210000000_job_lineage_and_search': jobLineageAndSearch,
  '20261220000000_change_safety': changeSafety,
  '20261226000000_unconfirmed_outcomes': unconfirmedOutcomes,
  '20261228000000_schedules': schedules,
  '20261230000000_tenant_limits': tenantLimits,
  '20261231000000_sealed_webhook_secrets': sealedWebhookSecrets(secrets),
  '20270105000000_progressive_delivery': progressiveDelivery,
  '20270110000000_http_handler_secret': httpHandlerSecret,
  '20270120000000_one_active_subscription': oneActiveSubscription,
  '20270121000000_version_artifacts': versionArtifacts,
  '20270122000000_version_lifecycle': versionLifecycle,
  '20270123000000_model_aliases': modelAliases,
  '20270124000000_assignments_follow_aliases': assignmentsFollowAliases,
  '20270125460000_registry_tags_and_search': registryTagsAndSearch,
});

export function migrationSourceWith(secrets?: SecretBox): Knex.MigrationSource<string> {
  const all = migrations(secrets);
  return {
    getMigrations: async () => Object.keys(all).sort(),
    getMigrationName: (name) => name,
    getMigration: async (name) => all[name],
  };
}

/** The list without keys: names for status checks, and every migration that has no secrets to convert. */
export const migrationSource = migrationSourceWith();
