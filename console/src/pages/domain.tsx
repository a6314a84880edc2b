import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ok } from '../api';
import { useCan, useSession } from '../session-context';
import { ErrorMessage, QueryView } from '../components/query-view';
import { Json, Status } from '../components/status';
import { Field } from '../components/field';
import { PreviewedChange } from '../components/previewed-change';
import { AssignmentTimeline } from './assignment-timeline';
import { DomainServices } from './domain-services';
import { Rollouts } from './rollouts';

/** The default assignment (key `default`): previewed with ?dry_run=true, then confirmed. */
function DefaultAssignment({ clientId, domainId }: { clientId: string; domainId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [modelId, setModelId] = useState('');
  const [version, setVersion] = useState('1');
  const run = (dryRun: boolean) =>
    ok(
      api.PUT('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}', {
        params: {
          path: { client_id: clientId, domain_id: domainId, assignment_key: 'default' },
          query: { dry_run: dryRun },
        },
        body: { model_id: modelId, model_version: version },
      }),
    );
  return (
    <section aria-labelledby="default-assignment">
      <h2 id="default-assignment">Default assignment</h2>
      <Field label="Model id" value={modelId} onChange={setModelId} />
      <Field label="Model version" value={version} onChange={setVersion} />
      <PreviewedChange
        key={`${modelId}@${version}`}
        label={`assign ${modelId || '…'} v${version} as the default`}
        run={run}
        onDone={() => void queryClient.invalidateQueries({ queryKey: ['assignments', clientId, domainId] })}
      />
    </section>
  );
}

export function DomainPage({ params }: { params: { clientId: string; domainId: string } }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const { clientId, domainId } = params;
  const canManage = useCan('manage_domains');
  const path = { client_id: clientId, domain_id: domainId };
  const domain = useQuery({
    queryKey: ['domain', clientId, domainId],
    queryFn: () => ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}', { params: { path } })),
  });
  // Everything else waits for the domain: a missing one is said once, by its own read, and nothing is offered.
  const features = useQuery({
    queryKey: ['features', clientId, domainId],
    queryFn: () => ok(api.GET('/v2/clients/{client_id}/domains/{domain_id}/features', { params: { path } })),
    enabled: domain.isSuccess,
  });
  const activate = useMutation({
    mutationFn: () =>
      ok(api.PUT('/v2/clients/{client_id}/domains/{domain_id}/new_status', { params: { path }, body: { status: 'active' } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['domain', clientId, domainId] }),
  });
  const crumbs = (
    <p>
      <Link href="/tenants">Tenants</Link> / <Link href={`/tenants/${clientId}`}>{clientId}</Link> /
    </p>
  );
  if (!domain.isSuccess)
    return (
      <>
        {crumbs}
        <h1>Domain {domainId}</h1>
        <QueryView query={domain}>{() => null}</QueryView>
      </>
    );
  const d = domain.data;
  return (
    <>
      {crumbs}
      <h1>Domain {domainId}</h1>
      <p>
        Status <Status value={d.status} />
        {d.status === 'not_ready' && canManage && (
          <>
            {' '}
            <button type="button" onClick={() => activate.mutate()} disabled={activate.isPending}>
              Activate domain
            </button>
          </>
        )}
        {' · '}
        <Link href={`/tenants/${clientId}/schedules?domain_id=${encodeURIComponent(domainId)}`}>Schedules of this domain</Link>
      </p>
      <ErrorMessage error={activate.error} />
      <section aria-labelledby="features">
        <h2 id="features">Feature definitions</h2>
        <QueryView query={features}>{(f) => <Json label="Feature definitions" value={f} />}</QueryView>
      </section>
      {canManage && <DefaultAssignment clientId={clientId} domainId={domainId} />}
      <Rollouts clientId={clientId} domainId={domainId} />
      <AssignmentTimeline clientId={clientId} domainId={domainId} />
      <DomainServices clientId={clientId} domainId={domainId} />
    </>
  );
}
