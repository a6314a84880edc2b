import knexFactory from 'knex';

export default async function globalTeardown() {
  const state = (globalThis as any).__MOS__;
  if (!state) return;
  await state.server?.stop();
  const admin = knexFactory({ client: 'pg', connection: state.adminUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`DROP DATABASE IF EXISTS ${state.dbName} WITH (FORCE)`);
  } finally {
    await admin.destroy();
  }
  await (globalThis as any).__MOS_PG__?.stop();
}
