import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ok } from '../api';
import { useCan, useSession } from '../session-context';
import { ErrorMessage, QueryView } from '../components/query-view';
import { Status, When } from '../components/status';
import { Field } from '../components/field';
import { Table } from '../components/table';

/** Administrators create tenants (PUT /v2/clients/{id} is admin-only). */
function CreateTenant() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [clientId, setClientId] = useState('');
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => ok(api.PUT('/v2/clients/{client_id}', { params: { path: { client_id: clientId } }, body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['clients'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-tenant">
      <h2 id="new-tenant">New tenant</h2>
      <Field label="Tenant id" value={clientId} onChange={setClientId} placeholder="acme" />
      <Field label="Name" value={name} onChange={setName} placeholder="Acme Air" />
      <button type="submit" disabled={!clientId || !name || create.isPending}>
        Create tenant
      </button>
      {create.isSuccess && <p role="status">Tenant {create.data.client_id} saved.</p>}
      <ErrorMessage error={create.error} />
    </form>
  );
}

export function Tenants() {
  const { api } = useSession();
  const admin = useCan('admin');
  const clients = useQuery({ queryKey: ['clients'], queryFn: () => ok(api.GET('/v2/clients', { params: { query: { limit: 100 } } })) });
  return (
    <>
      <h1>Tenants</h1>
      <QueryView query={clients}>
        {({ items }) => (
          <Table
            rows={items}
            rowKey={(c) => c.client_id}
            empty="No tenants you may see."
            columns={[
              { header: 'Tenant', cell: (c) => <Link href={`/tenants/${c.client_id}`}>{c.client_id}</Link> },
              { header: 'Name', cell: (c) => c.name },
              { header: 'Status', cell: (c) => <Status value={c.status} /> },
              { header: 'Created', cell: (c) => <When at={c.created_at} /> },
            ]}
          />
        )}
      </QueryView>
      {admin && <CreateTenant />}
    </>
  );
}
