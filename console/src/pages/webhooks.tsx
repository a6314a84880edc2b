import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '../../../client';
import { ok } from '../api';
import { useCan, useSession } from '../session-context';
import { ErrorMessage, QueryView } from '../components/query-view';
import { Status, When } from '../components/status';
import { ConfirmButton } from '../components/confirm-button';
import { Table } from '../components/table';

type Webhook = Schemas['Webhook'];

/** Delivery log of one endpoint (tenant or platform), with redelivery. */
function Deliveries({ hook }: { hook: Webhook }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const mayManage = useCan(hook.client_id ? 'manage_webhooks' : 'admin');
  const tenant = hook.client_id;
  const deliveries = useQuery({
    queryKey: ['deliveries', hook.webhook_id],
    queryFn: () =>
      tenant
        ? ok(
            api.GET('/v2/clients/{client_id}/webhooks/{webhook_id}/deliveries', {
              params: { path: { client_id: tenant, webhook_id: hook.webhook_id }, query: { limit: 50 } },
            }),
          )
        : ok(api.GET('/v2/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: hook.webhook_id }, query: { limit: 50 } } })),
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) =>
      tenant
        ? ok(
            api.POST('/v2/clients/{client_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
              params: { path: { client_id: tenant, webhook_id: hook.webhook_id, delivery_id: deliveryId } },
            }),
          )
        : ok(
            api.POST('/v2/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
              params: { path: { webhook_id: hook.webhook_id, delivery_id: deliveryId } },
            }),
          ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['deliveries', hook.webhook_id] }),
  });
  return (
    <QueryView query={deliveries}>
      {({ items }) => (
        <Table
          rows={items}
          rowKey={(d) => d.delivery_id}
          empty="No deliveries yet."
          caption={`Deliveries to ${hook.url}`}
          columns={[
            { header: 'Event', cell: (d) => d.event_type },
            { header: 'Status', cell: (d) => <Status value={d.status} /> },
            { header: 'Attempts', cell: (d) => d.attempts },
            { header: 'Last answer', cell: (d) => d.last_error ?? d.last_status_code ?? '—' },
            { header: 'Created', cell: (d) => <When at={d.created_at} /> },
            {
              header: 'Redeliver',
              cell: (d) =>
                mayManage && (
                  <>
                    <ConfirmButton
                      label="Redeliver"
                      question={`Send ${d.event_type} again?`}
                      onConfirm={() => redeliver.mutate(d.delivery_id)}
                    />
                    {/* The error stays with the delivery it was about, and goes when another redelivery starts. */}
                    {redeliver.variables === d.delivery_id && <ErrorMessage error={redeliver.error} />}
                  </>
                ),
            },
          ]}
        />
      )}
    </QueryView>
  );
}

/** Rotates an endpoint's secret; the new one is shown once. */
function RotateSecret({ hook }: { hook: Webhook }) {
  const { api } = useSession();
  const tenant = hook.client_id;
  const rotate = useMutation({
    mutationFn: () =>
      tenant
        ? ok(
            api.POST('/v2/clients/{client_id}/webhooks/{webhook_id}/rotate-secret', {
              params: { path: { client_id: tenant, webhook_id: hook.webhook_id } },
            }),
          )
        : ok(api.POST('/v2/webhooks/{webhook_id}/rotate-secret', { params: { path: { webhook_id: hook.webhook_id } } })),
  });
  return (
    <>
      <ConfirmButton
        label="Rotate secret"
        question="Issue a new signing secret? The old one stays valid for a grace period."
        onConfirm={() => rotate.mutate()}
      />
      {rotate.data && (
        <p role="status">
          New secret (shown once): <code>{rotate.data.secret}</code>
        </p>
      )}
      <ErrorMessage error={rotate.error} />
    </>
  );
}

function WebhookList({ hooks }: { hooks: Webhook[] }) {
  const [open, setOpen] = useState<string | null>(null);
  const canTenant = useCan('manage_webhooks');
  const admin = useCan('admin');
  if (hooks.length === 0) return <p>No endpoints.</p>;
  return (
    <ul className="webhooks">
      {hooks.map((h) => (
        <li key={h.webhook_id}>
          <strong>{h.url}</strong> <Status value={h.status} /> · {h.event_types.join(', ') || 'every event'}
          {h.failing_since && (
            <>
              {' '}
              · failing since <When at={h.failing_since} />
            </>
          )}{' '}
          <button type="button" onClick={() => setOpen(open === h.webhook_id ? null : h.webhook_id)} aria-expanded={open === h.webhook_id}>
            Delivery log
          </button>{' '}
          {(h.client_id ? canTenant : admin) && <RotateSecret hook={h} />}
          {open === h.webhook_id && <Deliveries hook={h} />}
        </li>
      ))}
    </ul>
  );
}

function TenantWebhooks({ clientId }: { clientId: string }) {
  const { api } = useSession();
  const hooks = useQuery({
    queryKey: ['webhooks', clientId],
    queryFn: () => ok(api.GET('/v2/clients/{client_id}/webhooks', { params: { path: { client_id: clientId }, query: { limit: 100 } } })),
  });
  return (
    <section aria-label={`Endpoints of ${clientId}`}>
      <h3>{clientId}</h3>
      <QueryView query={hooks}>{({ items }) => <WebhookList hooks={items} />}</QueryView>
    </section>
  );
}

export function Webhooks() {
  const { api } = useSession();
  const admin = useCan('admin');
  const clients = useQuery({ queryKey: ['clients'], queryFn: () => ok(api.GET('/v2/clients', { params: { query: { limit: 100 } } })) });
  const platform = useQuery({
    queryKey: ['webhooks', 'platform'],
    enabled: admin,
    queryFn: () => ok(api.GET('/v2/webhooks', { params: { query: { limit: 100 } } })),
  });
  return (
    <>
      <h1>Webhooks</h1>
      {admin && (
        <section aria-labelledby="platform-hooks">
          <h2 id="platform-hooks">Platform endpoints (every tenant)</h2>
          <QueryView query={platform}>{({ items }) => <WebhookList hooks={items} />}</QueryView>
        </section>
      )}
      <section aria-labelledby="tenant-hooks">
        <h2 id="tenant-hooks">Tenant endpoints</h2>
        <QueryView query={clients}>
          {({ items }) =>
            items.length === 0 ? (
              <p>No tenants you may see.</p>
            ) : (
              items.map((c) => <TenantWebhooks key={c.client_id} clientId={c.client_id} />)
            )
          }
        </QueryView>
      </section>
    </>
  );
}
