import { performance } from 'node:perf_hooks';
import knexFactory from 'knex';
import { createKnex, migrateLatest } from '../src/db/knex';
import { searchModels, searchVersions, type ModelFilter, type VersionFilter } from '../src/db/model-search.repository';
import { parseMetadataFilter, parseTagFilter } from '../src/domain/models';

/**
 * The registry's searches at 100,000 versions: a fresh database with the migrations applied, 1,000 models of 100
 * versions each (one INSERT … SELECT generate_series per table), spread over a year, with tags, metadata, artifacts,
 * statuses and a `champion` alias per model; then each filter of GET /v2/model-versions and GET /v2/models runs
 * through the repository (the code the routes run): its EXPLAIN (ANALYZE, BUFFERS) and the median latency of a first
 * page and of the 10th page (by cursor) of 50.
 * `npm run bench:registry-search [-- --models 1000 --versions 100 --keep]`; TEST_DATABASE_URL names the server.
 */
const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const MODELS = Number(arg('models', '1000'));
const VERSIONS = Number(arg('versions', '100'));
const KEEP = args.includes('--keep');
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function main() {
  const dbName = `mos_bench_registry_${process.pid}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const knex = createKnex(url.toString(), { max: 2 });
  try {
    await migrateLatest(knex);
    const t = performance.now();
    const total = MODELS * VERSIONS;
    // Deterministic per model m: 20 teams, 50 name families; per version: 200 datasets, 4 formats, statuses.
    await knex.raw(
      `insert into models (id, name, description, handlers, metadata, tags, created_at, updated_at)
       select 'model-' || m, 'family-' || (m % 50) || '-model-' || m, '', '{}',
         jsonb_build_object('owner', 'team-' || (m % 20)), jsonb_build_object('team', 'team-' || (m % 20), 'tier', case when m % 10 = 0 then 'gold' else 'std' end),
         now() - make_interval(secs => (${MODELS} - m) * 31536000.0 / ${MODELS}), now() - make_interval(secs => (${MODELS} - m) * 15000.0)
       from generate_series(0, ${MODELS - 1}) m`,
    );
    await knex.raw(
      `insert into model_versions (model_id, version, status, metadata, tags, artifacts, created_at, updated_at)
       select 'model-' || (i % ${MODELS}), (1 + i / ${MODELS})::text,
         case when i % 100 < 70 then 'active' when i % 100 < 85 then 'archived' when i % 100 < 95 then 'deprecated' else 'failed' end,
         jsonb_build_object('dataset', 'ds-' || (i % 200), 'epochs', 5 + i % 40, 'train', jsonb_build_object('lr', 0.001 * (1 + i % 5))),
         jsonb_build_object('team', 'team-' || (i % ${MODELS} % 20)) || case when i % 1000 = 7 then '{"audit":"2026-q3"}'::jsonb else '{}'::jsonb end,
         jsonb_build_array(jsonb_build_object('name', 'model', 'uri', 's3://models/' || i || '/model.bin', 'sha256', md5(i::text) || md5(i::text),
           'size_bytes', 1000 + i, 'format', (array['onnx', 'torchscript', 'sklearn-pickle', 'safetensors'])[1 + (i / 7) % 4])),
         now() - make_interval(secs => (${total} - i) * 31536000.0 / ${total}), now() - make_interval(secs => (${total} - i) * 150.0)
       from generate_series(0, ${total - 1}) i`,
    );
    // champion: each model's newest active version; challenger: every tenth model's.
    await knex.raw(`insert into model_aliases (model_id, alias, model_version)
      select model_id, 'champion', max(version::int)::text from model_versions where status = 'active' group by model_id`);
    await knex.raw(`insert into model_aliases (model_id, alias, model_version)
      select model_id, 'challenger', min(version::int)::text from model_versions
      where status = 'active' and substring(model_id from 7)::int % 10 = 0 group by model_id`);
    await knex.raw('vacuum analyze models, model_versions, model_aliases');
    console.log(`filled ${MODELS} models, ${total} versions in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);

    const base = { sort: 'created_at' as const };
    const dayAgo = (days: number) => new Date(Date.now() - days * 86400000).toISOString();
    const versionCases: [string, VersionFilter][] = [
      ['versions: no filter', base],
      ['versions: tag team=team-7 (5 %)', { ...base, tag: parseTagFilter('team=team-7') }],
      ['versions: tag key audit (0.1 %)', { ...base, tag: parseTagFilter('audit') }],
      ['versions: metadata dataset=ds-123 (0.5 %)', { ...base, metadata: parseMetadataFilter('dataset=ds-123') }],
      ['versions: metadata epochs=12 (text or number, 2.5 %)', { ...base, metadata: parseMetadataFilter('epochs=12') }],
      ['versions: alias champion (1 per model)', { ...base, alias: 'champion' }],
      ['versions: artifact_format safetensors (25 %)', { ...base, artifactFormat: 'safetensors' }],
      ['versions: status failed (5 %)', { ...base, status: 'failed' }],
      ['versions: model_id', { ...base, modelId: 'model-417' }],
      ['versions: created range (one day)', { ...base, createdAfter: dayAgo(200), createdBefore: dayAgo(199) }],
      ['versions: sort updated_at', { sort: 'updated_at' }],
      [
        'versions: tag + metadata + format',
        { ...base, tag: parseTagFilter('team=team-7'), metadata: parseMetadataFilter('dataset=ds-107'), artifactFormat: 'onnx' },
      ],
    ];
    const modelCases: [string, ModelFilter][] = [
      ['models: no filter', base],
      ['models: name_prefix family-7-', { ...base, namePrefix: 'family-7-' }],
      ['models: tag tier=gold', { ...base, tag: parseTagFilter('tier=gold') }],
      ['models: alias challenger', { ...base, alias: 'challenger' }],
      ['models: artifact_format onnx', { ...base, artifactFormat: 'onnx' }],
    ];

    // The statement the repository sends, as the driver gets it ($n placeholders), so EXPLAIN runs exactly that.
    let captured: { sql: string; bindings: unknown[] } | undefined;
    knex.on('query', (q: { sql: string; bindings?: unknown[] }) => {
      if (q.sql.includes('order by')) captured = { sql: q.sql, bindings: q.bindings ?? [] };
    });
    const explain = async () => {
      // Already numbered ($n) by the pg dialect, with the jsonb key operator `?` as written.
      const sql = captured!.sql;
      const conn = await knex.client.acquireConnection();
      try {
        const res = await conn.query(`explain (analyze, buffers) ${sql}`, captured!.bindings);
        return (res.rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await knex.client.releaseConnection(conn);
      }
    };
    const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(2) : '-');
    const run = async <F>(name: string, filter: F, search: (f: F, cursor?: string) => Promise<{ next_cursor: string | null }>) => {
      const times: number[] = [];
      const deepTimes: number[] = [];
      let plan = '';
      let deepPlan = '';
      for (let round = 0; round < 11; round++) {
        const t0 = performance.now();
        const first = await search(filter);
        times.push(performance.now() - t0);
        if (round === 0) plan = await explain();
        let cursor = first.next_cursor;
        for (let p = 0; p < 8 && cursor; p++) cursor = (await search(filter, cursor)).next_cursor;
        if (cursor) {
          const t1 = performance.now();
          await search(filter, cursor);
          deepTimes.push(performance.now() - t1);
          if (round === 0) deepPlan = await explain();
        }
      }
      console.log(`## ${name}: first page p50 ${median(times)} ms, 10th page p50 ${median(deepTimes)} ms`);
      console.log(plan, '\n');
      if (deepPlan) console.log(`### 10th page (by cursor)\n${deepPlan}\n`);
    };
    for (const [name, filter] of versionCases) await run(name, filter, (f, cursor) => searchVersions(knex, { limit: 50, cursor }, f));
    for (const [name, filter] of modelCases) await run(name, filter, (f, cursor) => searchModels(knex, { limit: 50, cursor }, f));
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
