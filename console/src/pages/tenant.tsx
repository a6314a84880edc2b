import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import type { Schemas } from '../../../client';
import { ok } from '../api';
import { ApiError } from '../errors';
import { useCan, useSession } from '../session-context';
import { ErrorMessage, QueryView } from '../components/query-view';
import { Status, When } from '../components/status';
import { EXAMPLE_FEATURES, Field, parseJson } from '../components/field';
import { Table } from '../components/table';

function CreateDomain({ clientId }: { clientId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [domainId, setDomainId] = useState('');
  const [features, setFeatures] = useState(EXAMPLE_FEATURES);
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/v2/clients/{client_id}/domains', {
          params: { path: { client_id: clientId } },
          body: { domain_id: domainId, features: parseJson<Schemas['FeatureDefinitions']>(features, 'Features') },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['domains', clientId] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-domain">
      <h2 id="new-domain">New domain</h2>
      <Field label="Domain id" value={domainId} onChange={setDomainId} placeholder="flights" />
      <Field label="Feature definitions (JSON)" value={features} onChange={setFeatures} multiline />
      <button type="submit" disabled={!domainId || create.isPending}>
        Create domain
      </button>
      {create.isSuccess && (
        <p role="status">
          Domain <Link href={`/tenants/${clientId}/domains/${create.data.domain_id}`}>{create.data.domain_id}</Link> created.
        </p>
      )}
      <ErrorMessage error={create.error} />
    </form>
  );
}

/** The revision in force under the domain's `default` key (the domain list does not carry it). */
function DefaultModel({ clientId, domainId }: { clientId: string; domainId: string }) {
  const { api } = useSession();
  const assignment = useQuery({
    queryKey: ['assignment', clientId, domainId, 'default'],
    queryFn: async () => {
      try {
        return await ok(
          api.GET('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}', {
            params: { path: { client_id: clientId, domain_id: domainId, assignment_key: 'default' } },
          }),
        );
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
  if (assignment.isPending) return <span aria-busy="true">…</span>;
  if (assignment.isError) return <>{assignment.error.message}</>;
  return <>{assignment.data ? `${assignment.data.model_id} v${assignment.data.model_version}` : 'none'}</>;
}

export function TenantPage({ params }: { params: { clientId: string } }) {
  const { api } = useSession();
  const { clientId } = params;
  const canManage = useCan('manage_domains');
  const client = useQuery({
    queryKey: ['client', clientId],
    queryFn: () => ok(api.GET('/v2/clients/{client_id}', { params: { path: { client_id: clientId } } })),
  });
  // Read only once the tenant is known: a missing tenant is said once, by the tenant's own read.
  const domains = useQuery({
    queryKey: ['domains', clientId],
    queryFn: () => ok(api.GET('/v2/clients/{client_id}/domains', { params: { path: { client_id: clientId }, query: { limit: 100 } } })),
    enabled: client.isSuccess,
  });
  const crumbs = (
    <p>
      <Link href="/tenants">Tenants</Link> /
    </p>
  );
  if (!client.isSuccess)
    return (
      <>
        {crumbs}
        <h1>Tenant {clientId}</h1>
        <QueryView query={client}>{() => null}</QueryView>
        {client.isError && (
          <p>
            <Link href="/tenants">Back to the tenants</Link>
          </p>
        )}
      </>
    );
  const c = client.data;
  return (
    <>
      {crumbs}
      <h1>Tenant {clientId}</h1>
      <p>
        {c.name} <Status value={c.status} /> · <Link href={`/jobs?client_id=${encodeURIComponent(clientId)}`}>Jobs of this tenant</Link> ·{' '}
        <Link href={`/tenants/${clientId}/schedules`}>Schedules of this tenant</Link>
      </p>
      <section aria-labelledby="domains">
        <h2 id="domains">Domains</h2>
        <QueryView query={domains}>
          {({ items }) => (
            <Table
              rows={items}
              rowKey={(d) => d.domain_id}
              empty="No domains yet."
              columns={[
                { header: 'Domain', cell: (d) => <Link href={`/tenants/${clientId}/domains/${d.domain_id}`}>{d.domain_id}</Link> },
                { header: 'Status', cell: (d) => <Status value={d.status} /> },
                { header: 'Default model', cell: (d) => <DefaultModel clientId={clientId} domainId={d.domain_id} /> },
                { header: 'Updated', cell: (d) => <When at={d.updated_at} /> },
              ]}
            />
          )}
        </QueryView>
      </section>
      {canManage && <CreateDomain clientId={clientId} />}
    </>
  );
}
