import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ok } from '../api';
import { useCan, useSession } from '../session-context';
import { ErrorMessage, QueryView } from '../components/query-view';
import { Json, Status, When } from '../components/status';
import { Table } from '../components/table';
import { Field, parseJson } from '../components/field';

function InitService({ clientId, domainId }: { clientId: string; domainId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [serviceId, setServiceId] = useState('');
  const [departure, setDeparture] = useState(new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 19) + 'Z');
  const [features, setFeatures] = useState('{"seats": 180}');
  const init = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/init', {
          params: { path: { client_id: clientId, domain_id: domainId } },
          body: {
            service_id: serviceId,
            departure_datetime: departure,
            static_features: parseJson<Record<string, unknown>>(features, 'Static features'),
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['services', clientId, domainId] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    init.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="init-service">
      <h3 id="init-service">Initialize a service</h3>
      <Field label="Service id" value={serviceId} onChange={setServiceId} placeholder="LH-400" />
      <Field label="Departure (ISO 8601)" value={departure} onChange={setDeparture} />
      <Field label="Static features (JSON)" value={features} onChange={setFeatures} multiline />
      <button type="submit" disabled={!serviceId || init.isPending}>
        Initialize service
      </button>
      {init.isSuccess && (
        <p role="status">
          Inference started: <Link href={`/jobs/${init.data.job_id}`}>job {init.data.job_id}</Link>
        </p>
      )}
      <ErrorMessage error={init.error} />
    </form>
  );
}

/** The domain's services: status, features as provided and as resolved, and their jobs. */
export function DomainServices({ clientId, domainId }: { clientId: string; domainId: string }) {
  const { api } = useSession();
  const canInit = useCan('service_init');
  const services = useQuery({
    queryKey: ['services', clientId, domainId],
    queryFn: () =>
      ok(
        api.GET('/v2/clients/{client_id}/domains/{domain_id}/services', {
          params: { path: { client_id: clientId, domain_id: domainId }, query: { limit: 100 } },
        }),
      ),
  });
  return (
    <section aria-labelledby="services">
      <h2 id="services">Services</h2>
      <QueryView query={services}>
        {({ items }) => (
          <Table
            rows={items}
            rowKey={(s) => s.service_id}
            empty="No services yet."
            columns={[
              { header: 'Service', cell: (s) => s.service_id },
              { header: 'Status', cell: (s) => <Status value={s.status} /> },
              { header: 'Departure', cell: (s) => <When at={s.departure_datetime} /> },
              {
                header: 'Provided features',
                cell: (s) => <Json label={`Provided features of ${s.service_id}`} value={s.provided_features} />,
              },
              {
                header: 'Resolved features',
                cell: (s) => <Json label={`Resolved features of ${s.service_id}`} value={s.resolved_features} />,
              },
              {
                header: 'Jobs',
                cell: (s) => (
                  <Link href={`/jobs?${new URLSearchParams({ client_id: clientId, domain_id: domainId, service_id: s.service_id })}`}>
                    Jobs of {s.service_id}
                  </Link>
                ),
              },
            ]}
          />
        )}
      </QueryView>
      {canInit && <InitService clientId={clientId} domainId={domainId} />}
    </section>
  );
}
