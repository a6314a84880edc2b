import knexFactory from 'knex';

export default async function globalTeardown() {
  const state = (globalThis as any).__MOS__;
  if (!state) return;
  await state.server?.stop();
  const admin = knexFactory({ client: 'pg', connection: state.adminUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`DROP DATABASE IF EXISTS ${state.dbName} WITH (FORCE)`);
    const temporalDbs = (globalThis as any).__MOS_TEMPORAL_DBS__;
    for (const db of temporalDbs ? [temporalDbs.main, temporalDbs.visibility] : [])
      await admin.raw(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  } finally {
    await admin.destroy();
  }
  await (globalThis as any).__MOS_PG__?.stop();
}
