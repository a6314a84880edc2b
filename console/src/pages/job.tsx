import { lazy, Suspense } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import type { Schemas } from '../../../client';
import { ok } from '../api';
import { useSession } from '../session-context';
import { QueryView } from '../components/query-view';
import { Json, ShadowMark, Status, When } from '../components/status';
import { isFinal } from '../vocab';
import { JobActions } from './job-actions';

const Graph = lazy(() => import('../components/graph').then((m) => ({ default: m.Graph })));

// A long poll: the API answers as soon as the job is final, or after this many seconds with the job as it is.
const WAIT_SECONDS = 25;

function Lineage({ job }: { job: Schemas['ModelJob'] }) {
  const { api } = useSession();
  const lineage = useQuery({
    // The status is in the key: a cascade starts when its parent finishes, so the tree is read again then.
    queryKey: ['lineage', job.job_id, job.status],
    queryFn: () => ok(api.GET('/v2/jobs/{job_id}/lineage', { params: { path: { job_id: job.job_id } } })),
  });
  return (
    <section aria-labelledby="lineage">
      <h2 id="lineage">Lineage</h2>
      <QueryView query={lineage}>
        {(tree) => (
          <Suspense fallback={<p aria-busy="true">Drawing…</p>}>
            <Graph
              title={`Cascade tree of ${tree.root_job_id}: each arrow goes from a job to the job its completion started`}
              nodes={tree.jobs.map((j) => ({
                id: j.job_id,
                label: `${j.model_id} · ${j.status}${j.trigger === 'shadow' ? ' · shadow' : ''}`,
                href: `/jobs/${j.job_id}`,
                tone: j.job_id === job.job_id ? 'current' : j.status === 'success' ? 'good' : isFinal(j.status) ? 'bad' : 'neutral',
              }))}
              edges={tree.jobs
                .filter((j) => j.parent_job_id && tree.jobs.some((p) => p.job_id === j.parent_job_id))
                .map((j) => ({ from: j.parent_job_id!, to: j.job_id }))}
            />
            {tree.truncated && <p>The tree holds more than {tree.max_jobs} jobs; the deepest are left out.</p>}
          </Suspense>
        )}
      </QueryView>
    </section>
  );
}

export function JobPage({ params }: { params: { jobId: string } }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const { jobId } = params;
  const job = useQuery({
    queryKey: ['job', jobId],
    // The first read answers at once; while the job is not final, each next read waits for its end (?wait=).
    queryFn: ({ queryKey }) => {
      const known = queryClient.getQueryData<Schemas['ModelJob']>(queryKey);
      const wait = known && !isFinal(known.status) ? WAIT_SECONDS : undefined;
      return ok(api.GET('/v2/jobs/{job_id}', { params: { path: { job_id: jobId }, query: wait ? { wait } : {} } }));
    },
    // Right after each answer while not final; slower after an error, so an outage is not hammered.
    refetchInterval: (query) => (query.state.data && !isFinal(query.state.data.status) ? (query.state.error ? 5000 : 250) : false),
    staleTime: 0,
  });
  return (
    <>
      <p>
        <Link href="/jobs">Jobs</Link> /
      </p>
      <h1>Job {jobId}</h1>
      <QueryView query={job}>
        {(j) => (
          <>
            <p aria-live="polite">
              Status <Status value={j.status} /> {!isFinal(j.status) && <span>(updates live)</span>}
            </p>
            <dl className="facts">
              <dt>Model</dt>
              <dd>
                <Link href={`/registry/${j.model_id}`}>{j.model_id}</Link> v{j.model_version} · {j.job_type} · trigger{' '}
                {j.trigger === 'shadow' ? <ShadowMark /> : j.trigger}
              </dd>
              <dt>Tenant</dt>
              <dd>
                {j.client_id ? (
                  <>
                    <Link href={`/tenants/${j.client_id}`}>{j.client_id}</Link>
                    {j.domain_id && (
                      <>
                        {' / '}
                        <Link href={`/tenants/${j.client_id}/domains/${j.domain_id}`}>{j.domain_id}</Link>
                      </>
                    )}
                    {j.service_id && ` / ${j.service_id}`}
                  </>
                ) : (
                  '—'
                )}
              </dd>
              <dt>Created</dt>
              <dd>
                <When at={j.created_at} />
              </dd>
              <dt>Started</dt>
              <dd>
                <When at={j.started_at} />
              </dd>
              <dt>Completed</dt>
              <dd>
                <When at={j.completed_at} />
              </dd>
              {j.cancelled_by && (
                <>
                  <dt>Cancelled by</dt>
                  <dd>
                    {j.cancelled_by}
                    {j.cancel_reason ? `: ${j.cancel_reason}` : ''}
                  </dd>
                </>
              )}
              <dt>Temporal</dt>
              <dd>
                {j.temporal_url ? (
                  <a href={j.temporal_url} target="_blank" rel="noreferrer">
                    Workflow {j.temporal_workflow_id} in the Temporal UI
                  </a>
                ) : (
                  `workflow ${j.temporal_workflow_id} (TEMPORAL_UI_URL not set)`
                )}
              </dd>
            </dl>
            <JobActions job={j} />
            <h2>Input</h2>
            <Json label="Input" value={j.input} />
            <h2>Output</h2>
            <Json label="Output" value={j.output} />
            <h2>Error</h2>
            <Json label="Error" value={j.error} />
            <Lineage job={j} />
          </>
        )}
      </QueryView>
    </>
  );
}
