import { performance } from 'node:perf_hooks';
import knexFactory from 'knex';
import { createKnex, migrateLatest } from '../src/db/knex';
import { listJobs, type JobFilter } from '../src/db/jobs.repository';

/**
 * The job search at a million jobs: a fresh database with the migrations applied, 1,000,000 jobs of 50 tenants
 * (4 domains, 100 services each), 20 models of 3 versions, spread over a year; then each main filter of
 * GET /v2/jobs runs through the repository (the code the route runs): its EXPLAIN (ANALYZE, BUFFERS) and the
 * median latency of a first page and of a page deep in the results (by cursor) of 50 jobs.
 * `npm run bench:job-search [-- --rows 1000000 --keep]`; TEST_DATABASE_URL names the server (default the local one).
 */
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const ROWS = Number(arg('rows', '1000000'));
const KEEP = args.includes('--keep');
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function main() {
  const dbName = `mos_bench_search_${process.pid}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const knex = createKnex(url.toString(), { max: 2 });
  try {
    await migrateLatest(knex);
    const t = performance.now();
    await knex.raw(
      `insert into clients (client_id, client_uuid, name) select 'tenant-' || i, gen_random_uuid(), 'Tenant ' || i from generate_series(0, 49) i`,
    );
    await knex.raw(`insert into domains (domain_uuid, client_id, domain_id, status)
      select md5('d' || c || '-' || d)::uuid, 'tenant-' || c, 'domain-' || d, 'active' from generate_series(0, 49) c, generate_series(0, 3) d`);
    await knex.raw(`insert into services (service_uuid, domain_uuid, service_id, status, departure_datetime)
      select md5('s' || c || '-' || d || '-' || s)::uuid, md5('d' || c || '-' || d)::uuid, 'service-' || s, 'available', now()
      from generate_series(0, 49) c, generate_series(0, 3) d, generate_series(0, 24) s`);
    await knex.raw(`insert into models (id, name, handlers) select 'model-' || m, 'Model ' || m, '{}' from generate_series(0, 19) m`);
    await knex.raw(
      `insert into model_versions (model_id, version, status) select 'model-' || m, v::text, 'active' from generate_series(0, 19) m, generate_series(1, 3) v`,
    );
    // Deterministic per row i: tenant jobs 85 %, service jobs 60 %, inference 95 %, success 80 %, cascades 14 % (of the previous job).
    const batch = 100_000;
    for (let start = 0; start < ROWS; start += batch) {
      await knex.raw(
        `insert into model_jobs (job_id, model_id, model_version, job_type, trigger, status, client_id, domain_uuid, service_uuid,
           source_job_id, cascade_depth, root_job_id, created_at, updated_at)
         select md5(i::text)::uuid::text, 'model-' || (i * 7 % 20), (1 + i % 3)::text,
           case when i % 20 = 0 then 'training' else 'inference' end,
           case when i % 20 = 0 then 'direct' when i % 100 < 14 and i > 0 then 'cascade' when i % 100 < 44 then 'service_init'
                when i % 100 < 64 then 'service_update' when i % 100 < 84 then 'assignment' when i % 100 < 99 then 'direct' else 'rerun' end,
           case when i % 100 < 80 then 'success' when i % 100 < 90 then 'failure' when i % 100 < 95 then 'running'
                when i % 100 < 98 then 'timed_out' else 'cancelled' end,
           case when i % 20 = 0 or i % 100 >= 85 then null else 'tenant-' || (i * 13 % 50) end,
           case when i % 20 = 0 or i % 100 >= 85 then null else md5('d' || (i * 13 % 50) || '-' || (i % 4))::uuid end,
           case when i % 20 = 0 or i % 100 >= 60 then null else md5('s' || (i * 13 % 50) || '-' || (i % 4) || '-' || (i * 3 % 25))::uuid end,
           case when i % 20 <> 0 and i % 100 < 14 and i > 0 then md5((i - 1)::text)::uuid::text end,
           case when i % 20 <> 0 and i % 100 < 14 and i > 0 then 1 else 0 end,
           null,
           now() - make_interval(secs => (${ROWS} - i) * 31536000.0 / ${ROWS}), now()
         from generate_series(?::int, ?::int) i`,
        [start, Math.min(ROWS, start + batch) - 1],
      );
      process.stdout.write(`\r${Math.min(ROWS, start + batch)} jobs`);
    }
    await knex.raw('vacuum analyze model_jobs');
    console.log(`\nfilled ${ROWS} jobs in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);

    const cascadeSource = (await knex('model_jobs').where({ trigger: 'cascade' }).orderBy('created_at', 'desc').first('source_job_id'))!
      .source_job_id as string;
    const cases: [string, JobFilter][] = [
      ['no filter (platform caller)', {}],
      ['client_id', { client_id: 'tenant-7' }],
      ['tenant caller (2 tenants) + status', { visible_client_ids: ['tenant-7', 'tenant-8'], status: 'failure' }],
      ['client_id + domain_id', { client_id: 'tenant-7', domain_id: 'domain-2' }],
      ['client_id + domain_id + service_id', { client_id: 'tenant-7', domain_id: 'domain-2', service_id: 'service-3' }],
      ['model_id', { model_id: 'model-3' }],
      ['model_id + model_version', { model_id: 'model-3', model_version: '2' }],
      ['status (rare: cancelled)', { status: 'cancelled' }],
      ['job_type training', { job_type: 'training' }],
      ['trigger rerun', { trigger: 'rerun' }],
      ['source_job_id', { source_job_id: cascadeSource }],
      [
        'created-at range (one day)',
        { created_after: new Date(Date.now() - 200 * 86400000), created_before: new Date(Date.now() - 199 * 86400000) },
      ],
      ['client_id + status + range', { client_id: 'tenant-7', status: 'success', created_after: new Date(Date.now() - 100 * 86400000) }],
    ];
    // The statement listJobs sends, as the driver gets it ($n placeholders), so EXPLAIN runs exactly that.
    let captured: { sql: string; bindings: unknown[] } | undefined;
    knex.on('query', (q: { sql: string; bindings?: unknown[] }) => {
      if (q.sql.includes('"model_jobs"') && q.sql.includes('order by')) captured = { sql: q.sql, bindings: q.bindings ?? [] };
    });
    const explain = async () => {
      let n = 0;
      const sql = captured!.sql.replace(/\?/g, () => `$${++n}`);
      const conn = await knex.client.acquireConnection();
      try {
        const res = await conn.query(`explain (analyze, buffers) ${sql}`, captured!.bindings);
        return (res.rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await knex.client.releaseConnection(conn);
      }
    };
    for (const [name, filter] of cases) {
      const times: number[] = [];
      const deepTimes: number[] = [];
      let plan = '';
      for (let run = 0; run < 11; run++) {
        const t0 = performance.now();
        const first = await listJobs(knex, filter, { limit: 50 });
        times.push(performance.now() - t0);
        if (run === 0) {
          plan = await explain();
        }
        // A page deep in the results: the cursor of the 10th page.
        let cursor = first.next_cursor;
        for (let p = 0; p < 8 && cursor; p++) cursor = (await listJobs(knex, filter, { limit: 50, cursor })).next_cursor;
        if (cursor) {
          const t1 = performance.now();
          await listJobs(knex, filter, { limit: 50, cursor });
          deepTimes.push(performance.now() - t1);
        }
      }
      const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(2) : '-');
      console.log(`## ${name}: first page p50 ${median(times)} ms, 10th page p50 ${median(deepTimes)} ms`);
      console.log(plan, '\n');
    }
  } finally {
    await knex.destroy();
    if (!KEEP) await admin.raw(`drop database ${dbName}`);
    else console.log(`kept database ${dbName}`);
    await admin.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
