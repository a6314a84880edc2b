import knexFactory from 'knex';
import { testEnv } from '../helpers/test-env';

/** test/helpers/suite-database.ts: this file runs on a migrated database of its own, not on the shared template. */
describe('a database per test file', () => {
  it('connects this file to its own copy of the migrated template, which nobody else may connect to', async () => {
    const template = new URL(process.env.MOS_TEST_TEMPLATE_URL!).pathname.slice(1);
    const db = knexFactory({ client: 'pg', connection: testEnv.databaseUrl, pool: { min: 0, max: 1 } });
    try {
      const { rows } = await db.raw<{ rows: { name: string; migrated: string }[] }>(
        'SELECT current_database() AS name, (SELECT count(*) FROM knex_migrations) AS migrated',
      );
      expect(rows[0].name).toMatch(new RegExp(`^${template}_[0-9a-f]{10}$`));
      expect(Number(rows[0].migrated)).toBeGreaterThan(0);
      const { rows: templates } = await db.raw<{ rows: { datallowconn: boolean }[] }>(
        'SELECT datallowconn FROM pg_database WHERE datname = ?',
        [template],
      );
      expect(templates).toEqual([{ datallowconn: false }]);
    } finally {
      await db.destroy();
    }
  });
});
