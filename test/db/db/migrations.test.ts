import knexFactory from 'knex';
import { createKnex, migrateLatest } from '../../../src/db/knex';
import { migrationSource } from '../../../migrations';
import { testEnv } from '../../helpers/test-env';

const ALL_MIGRATIONS = [
  '20261122000000_initial_schema',
  '20261123000000_job_workflow_run',
  '20261201000000_webhooks',
  '20261210000000_job_lineage_and_search',
  '20261220000000_change_safety',
  '20261226000000_unconfirmed_outcomes',
  '20261228000000_schedules',
  '20261230000000_tenant_limits',
  '20261231000000_sealed_webhook_secrets',
  '20270105000000_progressive_delivery',
  '20270110000000_http_handler_secret',
  '20270120000000_one_active_subscription',
  '20270121000000_version_artifacts',
  '20270122000000_version_lifecycle',
  '20270123000000_model_aliases',
  '20270124000000_assignments_follow_aliases',
  '20270125460000_registry_tags_and_search',
];

describe('migrations', () => {
  it('apply, roll back completely, and apply again on an empty database', async () => {
    const name = `mos_migrations_${process.pid}_${Date.now()}`;
    const admin = knexFactory({ client: 'pg', connection: testEnv.databaseUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(testEnv.databaseUrl);
    url.pathname = `/${name}`;
    const knex = createKnex(url.toString());
    try {
      expect(await migrateLatest(knex)).toEqual(ALL_MIGRATIONS);
      await knex.migrate.rollback({ migrationSource }, true);
      const { rows } = await knex.raw(
        `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT LIKE 'knex_%'`,
      );
      expect(rows[0].n).toBe(0);
      expect(await migrateLatest(knex)).toEqual(ALL_MIGRATIONS);
      const indexes = await knex.raw(`SELECT indexname FROM pg_indexes WHERE tablename = 'assignments'`);
      expect(indexes.rows.map((r: any) => r.indexname)).toEqual(
        expect.arrayContaining(['assignments_one_active_domain_key', 'assignments_one_active_service_key']),
      );
    } finally {
      await knex.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    }
  });
});
