import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ok } from '../api';
import { useSession } from '../session-context';
import { QueryView } from '../components/query-view';
import { Status, When } from '../components/status';
import { Table } from '../components/table';
import { JOB_STATUSES, SERVICE_STATUSES, type ServiceStatus } from '../vocab';

const COUNT_CAP = 100;
const DOMAIN_CAP = 25;

/** An error object's message, or its JSON. */
function errorText(error: unknown): string {
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string')
    return (error as { message: string }).message;
  return JSON.stringify(error);
}

function JobCounts() {
  const { api } = useSession();
  // Rounded to the minute, so the query key (and the links) hold still between renders.
  const since = new Date(Math.floor((Date.now() - 24 * 3600_000) / 60_000) * 60_000).toISOString();
  const counts = useQuery({
    queryKey: ['overview', 'job-counts', since],
    queryFn: () =>
      Promise.all(
        JOB_STATUSES.map(async (status) => {
          const page = await ok(api.GET('/v2/jobs', { params: { query: { status, created_after: since, limit: COUNT_CAP } } }));
          return { status, count: page.items.length, more: Boolean(page.next_cursor) };
        }),
      ),
  });
  return (
    <section aria-labelledby="jobs-24h">
      <h2 id="jobs-24h">Jobs of the last 24 hours</h2>
      <QueryView query={counts}>
        {(rows) => (
          <ul className="counts">
            {rows.map(({ status, count, more }) => (
              <li key={status}>
                <Link href={`/jobs?status=${status}&created_after=${encodeURIComponent(since)}`}>
                  <Status value={status} /> <strong>{more ? `${count}+` : count}</strong>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function RecentFailures() {
  const { api } = useSession();
  const failures = useQuery({
    queryKey: ['overview', 'failures'],
    queryFn: () => ok(api.GET('/v2/jobs', { params: { query: { status: 'failure', limit: 10 } } })),
  });
  return (
    <section aria-labelledby="failures">
      <h2 id="failures">Recent failures</h2>
      <QueryView query={failures}>
        {({ items }) => (
          <Table
            rows={items}
            rowKey={(job) => job.job_id}
            empty="No failed jobs."
            columns={[
              { header: 'Job', cell: (job) => <Link href={`/jobs/${job.job_id}`}>{job.job_id}</Link> },
              { header: 'Model', cell: (job) => `${job.model_id} v${job.model_version}` },
              { header: 'Tenant', cell: (job) => job.client_id ?? '—' },
              { header: 'Finished', cell: (job) => <When at={job.completed_at} /> },
              { header: 'Error', cell: (job) => errorText(job.error) },
            ]}
          />
        )}
      </QueryView>
    </section>
  );
}

function ServiceCounts() {
  const { api } = useSession();
  // No API route counts services across tenants: the walk reads the first domains of the visible tenants.
  const walk = useQuery({
    queryKey: ['overview', 'services'],
    queryFn: async () => {
      const clients = await ok(api.GET('/v2/clients', { params: { query: { limit: DOMAIN_CAP } } }));
      const domains = (
        await Promise.all(
          clients.items.map(
            async (c) => (await ok(api.GET('/v2/clients/{client_id}/domains', { params: { path: { client_id: c.client_id } } }))).items,
          ),
        )
      )
        .flat()
        .slice(0, DOMAIN_CAP);
      const rows = await Promise.all(
        domains.map(async (d) => {
          const counts = Object.fromEntries(SERVICE_STATUSES.map((s) => [s, 0])) as Record<ServiceStatus, number>;
          const services = await ok(
            api.GET('/v2/clients/{client_id}/domains/{domain_id}/services', {
              params: { path: { client_id: d.client_id, domain_id: d.domain_id }, query: { limit: 100 } },
            }),
          );
          for (const s of services.items) counts[s.status] += 1;
          return { clientId: d.client_id, domainId: d.domain_id, counts };
        }),
      );
      return rows;
    },
  });
  return (
    <section aria-labelledby="services">
      <h2 id="services">Services by status</h2>
      <QueryView query={walk}>
        {(rows) => (
          <Table
            rows={rows}
            rowKey={(r) => `${r.clientId}/${r.domainId}`}
            empty="No domains yet."
            columns={[
              {
                header: 'Domain',
                cell: (r) => (
                  <Link href={`/tenants/${r.clientId}/domains/${r.domainId}`}>
                    {r.clientId} / {r.domainId}
                  </Link>
                ),
              },
              ...SERVICE_STATUSES.map((s) => ({ header: s, cell: (r: (typeof rows)[number]) => r.counts[s] })),
            ]}
          />
        )}
      </QueryView>
    </section>
  );
}

export function Overview() {
  return (
    <>
      <h1>Overview</h1>
      <JobCounts />
      <RecentFailures />
      <ServiceCounts />
    </>
  );
}
