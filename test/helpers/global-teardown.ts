import knexFactory from 'knex';

export default async function globalTeardown() {
  const state = (globalThis as any).__MOS__;
  if (!state) return;
  await state.server?.stop();
  const admin = knexFactory({ client: 'pg', connection: state.adminUrl, pool: { min: 0, max: 1 } });
  try {
    // The suites' own databases still held open when their file ended (test/helpers/suite-database.ts), then the template.
    const { rows } = await admin.raw<{ rows: { datname: string }[] }>('SELECT datname FROM pg_database WHERE datname LIKE ?', [
      `${state.dbName}\\_%`,
    ]);
    for (const { datname } of rows) await admin.raw(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.raw(`DROP DATABASE IF EXISTS ${state.dbName} WITH (FORCE)`);
    const temporalDbs = (globalThis as any).__MOS_TEMPORAL_DBS__;
    for (const db of temporalDbs ? [temporalDbs.main, temporalDbs.visibility] : [])
      await admin.raw(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  } finally {
    await admin.destroy();
  }
  await (globalThis as any).__MOS_PG__?.stop();
}
