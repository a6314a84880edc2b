import type { Knex } from 'knex';
import * as initialSchema from './20261122000000_initial_schema';
import * as jobWorkflowRun from './20261123000000_job_workflow_run';
import * as webhooks from './20261201000000_webhooks';
import * as jobLineageAndSearch from './20261210000000_job_lineage_and_search';
import * as changeSafety from './20261220000000_change_safety';
import * as unconfirmedOutcomes from './20261226000000_unconfirmed_outcomes';
import * as schedules from './20261228000000_schedules';
import * as tenantLimits from './20261230000000_tenant_limits';
import * as httpHandlerSecret from './20270110000000_http_handler_secret';

/** Migrations listed explicitly, so the same list runs from ts (tests) and compiled js (production). */
const migrations: Record<string, Knex.Migration> = {
  '20261122000000_initial_schema': initialSchema,
  '20261123000000_job_workflow_run': jobWorkflowRun,
  '20261201000000_webhooks': webhooks,
  '20261210000000_job_lineage_and_search': jobLineageAndSearch,
  '20261220000000_change_safety': changeSafety,
  '20261226000000_unconfirmed_outcomes': unconfirmedOutcomes,
  '20261228000000_schedules': schedules,
  '20261230000000_tenant_limits': tenantLimits,
  '20270110000000_http_handler_secret': httpHandlerSecret,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
