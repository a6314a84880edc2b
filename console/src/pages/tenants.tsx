import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ok } from '../api';
import { ApiError } from '../errors';
import { useSession } from '../session-context';
import { ErrorMessage, QueryView } from '../components/query-view';
import { Status, When } from '../components/status';
import { Field } from '../components/field';
import { Table } from '../components/table';

type Existing = { client_id: string; name: string };

/**
 * Platform administrators create tenants. The API's PUT is an upsert, so the form reads the tenant first and asks
 * before it replaces one that exists; a tenant created by someone else between the read and the write is told by
 * the answer's 200 (replaced) against 201 (created).
 */
function CreateTenant() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [clientId, setClientId] = useState('');
  const [name, setName] = useState('');
  const [existing, setExisting] = useState<Existing | null>(null);
  const save = useMutation({
    mutationFn: async () => {
      const call = api.PUT('/v2/clients/{client_id}', { params: { path: { client_id: clientId } }, body: { name } });
      const client = await ok(call);
      return { client, created: (await call).response.status === 201 };
    },
    onSuccess: () => {
      setExisting(null);
      void queryClient.invalidateQueries({ queryKey: ['clients'] });
    },
  });
  const check = useMutation({
    mutationFn: async (): Promise<Existing | null> => {
      try {
        return await ok(api.GET('/v2/clients/{client_id}', { params: { path: { client_id: clientId } } }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    onSuccess: (found) => {
      if (found) setExisting(found);
      else save.mutate();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.reset();
    setExisting(null);
    check.mutate();
  };
  const edit = (set: (v: string) => void) => (v: string) => {
    set(v);
    setExisting(null);
    save.reset();
    check.reset();
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-tenant">
      <h2 id="new-tenant">New tenant</h2>
      <Field label="Tenant id" value={clientId} onChange={edit(setClientId)} placeholder="acme" />
      <Field label="Name" value={name} onChange={edit(setName)} placeholder="Acme Air" />
      <button type="submit" disabled={!clientId || !name || check.isPending || save.isPending}>
        Create tenant
      </button>
      {existing && (
        <div role="alert" className="warning">
          <p>
            Tenant <strong>{existing.client_id}</strong> exists already (name “{existing.name}”). Nothing was changed.
          </p>
          <button type="button" onClick={() => save.mutate()} disabled={save.isPending}>
            Replace the name of {existing.client_id} with “{name}”
          </button>{' '}
          <button type="button" onClick={() => setExisting(null)}>
            Keep it
          </button>
        </div>
      )}
      {save.isSuccess && (
        <p role="status">
          Tenant {save.data.client.client_id} {save.data.created ? 'created' : 'existed and was updated'}.
        </p>
      )}
      <ErrorMessage error={check.error ?? save.error} />
    </form>
  );
}

export function Tenants() {
  const { api } = useSession();
  const { caller } = useSession();
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
      {caller.platform && <CreateTenant />}
    </>
  );
}
