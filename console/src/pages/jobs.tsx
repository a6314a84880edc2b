import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import type { paths } from '../../../client';
import { ok } from '../api';
import { useSession } from '../session-context';
import { QueryView } from '../components/query-view';
import { ShadowMark, Status, When } from '../components/status';
import { Table } from '../components/table';
import { JOB_STATUSES, JOB_TRIGGERS, JOB_TYPES } from '../vocab';

type JobQuery = NonNullable<paths['/v2/jobs']['get']['parameters']['query']>;
type Filter = Exclude<keyof JobQuery, 'limit'>;

// Every filter of GET /v2/jobs, keyed by the query type, so a filter added to the API fails the type-check until listed here.
const FILTERS = {
  client_id: 'Tenant',
  domain_id: 'Domain',
  service_id: 'Service',
  model_id: 'Model',
  model_version: 'Model version',
  job_type: 'Job type',
  status: 'Status',
  trigger: 'Trigger',
  source_job_id: 'Source job (cascade parent)',
  root_job_id: 'Root job (cascade tree)',
  rerun_of: 'Re-run of',
  schedule_id: 'Schedule',
  assignment_id: 'Assignment revision (UUID)',
  created_after: 'Created at or after (ISO 8601)',
  created_before: 'Created before (ISO 8601)',
  cursor: 'Page cursor',
} satisfies Record<Filter, string>;
const CHOICES: Partial<Record<Filter, readonly string[]>> = { job_type: JOB_TYPES, status: JOB_STATUSES, trigger: JOB_TRIGGERS };
const EDITABLE = (Object.keys(FILTERS) as Filter[]).filter((f) => f !== 'cursor');

/** The filters in the URL's query string, so a search is a link one can share. */
function filtersOf(search: string): Partial<Record<Filter, string>> {
  const params = new URLSearchParams(search);
  const out: Partial<Record<Filter, string>> = {};
  for (const key of Object.keys(FILTERS) as Filter[]) {
    const value = params.get(key);
    if (value) out[key] = value;
  }
  return out;
}

function FilterInput({ name, value, onChange }: { name: Filter; value: string; onChange: (v: string) => void }) {
  const id = `filter-${name}`;
  const choices = CHOICES[name];
  return (
    <div className="field">
      <label htmlFor={id}>{FILTERS[name]}</label>
      {choices ? (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">any</option>
          {choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      ) : (
        <input id={id} value={value} onChange={(e) => onChange(e.target.value)} />
      )}
    </div>
  );
}

/** Keyed by the query string, so the form shows the filters of the URL after any navigation. */
export function Jobs() {
  const search = useSearch();
  return <JobSearch key={search} search={search} />;
}

function JobSearch({ search }: { search: string }) {
  const { api } = useSession();
  const [, navigate] = useLocation();
  const filters = filtersOf(search);
  const [draft, setDraft] = useState(filters);
  const jobs = useQuery({
    queryKey: ['jobs', filters],
    // The URL's strings go to the API as they are; it validates them (400 with a readable message otherwise).
    queryFn: () => ok(api.GET('/v2/jobs', { params: { query: { ...(filters as JobQuery), limit: 50 } } })),
  });
  const go = (next: Partial<Record<Filter, string>>) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(next)) if (value) params.set(key, value);
    navigate(`/jobs${params.size ? `?${params}` : ''}`);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    go({ ...draft, cursor: undefined });
  };
  return (
    <>
      <h1>Jobs</h1>
      <form onSubmit={submit} className="filters" aria-label="Job filters">
        {EDITABLE.map((f) => (
          <FilterInput key={f} name={f} value={draft[f] ?? ''} onChange={(v) => setDraft({ ...draft, [f]: v })} />
        ))}
        <div className="actions">
          <button type="submit">Search</button>{' '}
          <button
            type="button"
            onClick={() => {
              setDraft({});
              go({});
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <QueryView query={jobs}>
        {({ items, next_cursor }) => (
          <>
            <Table
              rows={items}
              rowKey={(j) => j.job_id}
              empty="No jobs match."
              columns={[
                { header: 'Job', cell: (j) => <Link href={`/jobs/${j.job_id}`}>{j.job_id}</Link> },
                { header: 'Status', cell: (j) => <Status value={j.status} /> },
                { header: 'Type', cell: (j) => j.job_type },
                // A shadow job changes nothing; it is marked so it is not read as the service's job.
                { header: 'Trigger', cell: (j) => (j.trigger === 'shadow' ? <ShadowMark /> : j.trigger) },
                { header: 'Model', cell: (j) => `${j.model_id} v${j.model_version}` },
                {
                  header: 'Tenant / domain / service',
                  cell: (j) => [j.client_id, j.domain_id, j.service_id].filter(Boolean).join(' / ') || '—',
                },
                { header: 'Created', cell: (j) => <When at={j.created_at} /> },
              ]}
            />
            {next_cursor && (
              <button type="button" onClick={() => go({ ...filters, cursor: next_cursor })}>
                Next page
              </button>
            )}
          </>
        )}
      </QueryView>
    </>
  );
}
