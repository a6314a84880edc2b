import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ok } from '../api';
import { useSession } from '../session-context';
import { QueryView } from '../components/query-view';
import { Json, Status, When } from '../components/status';
import { Table } from '../components/table';
import { CreateVersion, ModelSubscriptions, VersionStatus } from './registry-writes';

function Compatibility({ modelId, version }: { modelId: string; version: string }) {
  const { api } = useSession();
  const report = useQuery({
    queryKey: ['compatibility', modelId, version],
    queryFn: () =>
      ok(api.GET('/v2/models/{model_id}/compatibility', { params: { path: { model_id: modelId }, query: { model_version: version } } })),
  });
  return <QueryView query={report}>{(r) => <Json label={`Compatibility of version ${version}`} value={r} />}</QueryView>;
}

/** `key=value` of each tag, in key order: what a registry search's `tag` filter takes. */
function TagList({ tags }: { tags: Record<string, string> | undefined }) {
  const entries = Object.entries(tags ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <>—</>;
  return (
    <ul className="tags">
      {entries.map(([key, value]) => (
        <li key={key}>
          <code>
            {key}={value}
          </code>
        </li>
      ))}
    </ul>
  );
}

/** An artifact by name and format, with the start of its SHA-256 (the whole digest on hover) and its size. */
function ArtifactList({
  artifacts,
}: {
  artifacts: { name: string; format: string; sha256: string; size_bytes?: number | null }[] | undefined;
}) {
  if (!artifacts?.length) return <>—</>;
  return (
    <ul className="artifacts">
      {artifacts.map((a) => (
        <li key={a.name}>
          {a.name} ({a.format}) <code title={`sha256:${a.sha256}`}>sha256:{a.sha256.slice(0, 12)}…</code>
          {a.size_bytes != null && ` ${a.size_bytes} bytes`}
        </li>
      ))}
    </ul>
  );
}

function Versions({ modelId }: { modelId: string }) {
  const { api } = useSession();
  const [open, setOpen] = useState<string | null>(null);
  const versions = useQuery({
    queryKey: ['versions', modelId],
    queryFn: () => ok(api.GET('/v2/models/{model_id}/versions', { params: { path: { model_id: modelId }, query: { limit: 100 } } })),
  });
  const aliases = useQuery({
    queryKey: ['aliases', modelId],
    queryFn: () => ok(api.GET('/v2/models/{model_id}/aliases', { params: { path: { model_id: modelId } } })),
  });
  const aliasesOf = (version: string) => (aliases.data?.items ?? []).filter((a) => a.version === version).map((a) => a.alias);
  return (
    <section aria-labelledby="versions">
      <h2 id="versions">Versions</h2>
      <QueryView query={versions}>
        {({ items }) => (
          <Table
            rows={items}
            rowKey={(v) => v.version}
            empty="No versions."
            columns={[
              { header: 'Version', cell: (v) => v.version },
              { header: 'Status', cell: (v) => <Status value={v.status} /> },
              {
                header: 'Aliases',
                cell: (v) =>
                  aliasesOf(v.version).map((alias) => (
                    <span key={alias} className="badge">
                      {alias}
                    </span>
                  )),
              },
              { header: 'Tags', cell: (v) => <TagList tags={v.tags} /> },
              { header: 'Artifacts', cell: (v) => <ArtifactList artifacts={v.artifacts} /> },
              { header: 'Frozen features', cell: (v) => v.features.map((f) => `${f.name}${f.mandatory ? '' : '?'}`).join(', ') || '—' },
              { header: 'Changed', cell: (v) => <When at={v.status_changed_at ?? v.updated_at} /> },
              {
                header: 'Against what is deployed',
                cell: (v) =>
                  open === v.version ? (
                    <Compatibility modelId={modelId} version={v.version} />
                  ) : (
                    <button type="button" onClick={() => setOpen(v.version)}>
                      Compatibility report of {v.version}
                    </button>
                  ),
              },
            ]}
          />
        )}
      </QueryView>
    </section>
  );
}

export function ModelPage({ params }: { params: { modelId: string } }) {
  const { api, caller } = useSession();
  const { modelId } = params;
  const model = useQuery({
    queryKey: ['model', modelId],
    queryFn: () => ok(api.GET('/v2/models/{model_id}', { params: { path: { model_id: modelId } } })),
  });
  return (
    <>
      <p>
        <Link href="/registry">Registry</Link> /
      </p>
      <h1>Model {modelId}</h1>
      <QueryView query={model}>
        {({ model: m }) => (
          <>
            <p>
              {m.name}: {m.description} <Status value={m.status} />
            </p>
            <p>
              Tags: <TagList tags={m.tags} />
            </p>
            <p>
              <Link href={`/jobs?model_id=${encodeURIComponent(m.id)}`}>Jobs of this model</Link>
            </p>
            <h2>Handlers</h2>
            <Json label="Handlers" value={m.handlers} />
            <h2>Handler contracts</h2>
            <Json label="Handler contracts" value={m.handler_contracts} />
          </>
        )}
      </QueryView>
      <Versions modelId={modelId} />
      {model.isSuccess && (
        <>
          {caller.platform && (
            <>
              <CreateVersion modelId={modelId} />
              <VersionStatus modelId={modelId} />
            </>
          )}
          <ModelSubscriptions modelId={modelId} />
        </>
      )}
    </>
  );
}
