import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import type { Schemas } from '../../../client';
import { ok } from '../api';
import { useCan, useSession } from '../session-context';
import { ErrorMessage, QueryView } from '../components/query-view';
import { When } from '../components/status';
import { Field } from '../components/field';
import { Table } from '../components/table';
import { ConfirmButton } from '../components/confirm-button';
import { PreviewedChange } from '../components/previewed-change';
import { useAssignmentRevisions } from './assignment-timeline';

type Revision = Schemas['Assignment'];
type Side = Schemas['RolloutSide'];
type Keys = { clientId: string; domainId: string };

const ROLES = ['canary', 'shadow'];

const isRollout = (r: Revision) => r.role !== null && ROLES.includes(r.role);
const primaryKeyOf = (r: Revision) => (typeof r.settings.primary_key === 'string' ? r.settings.primary_key : 'default');
const shareOf = (r: Revision) => (typeof r.settings.share === 'number' ? r.settings.share : undefined);
const rate = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)} %`);
const ms = (v: number | null) => (v === null ? '—' : `${v} ms`);

function useInvalidate({ clientId, domainId }: Keys) {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: ['assignments', clientId, domainId] });
    void queryClient.invalidateQueries({ queryKey: ['rollout', clientId, domainId] });
    void queryClient.invalidateQueries({ queryKey: ['assignment', clientId, domainId] });
  };
}

/** Writes a canary or shadow under its own key: a new share of an existing key continues its rollout. */
function StartRollout({ clientId, domainId, initial }: Keys & { initial?: Revision }) {
  const { api } = useSession();
  const invalidate = useInvalidate({ clientId, domainId });
  const [key, setKey] = useState(initial?.assignment_key ?? '');
  const [modelId, setModelId] = useState(initial?.model_id ?? '');
  const [version, setVersion] = useState(initial?.model_version ?? '');
  const [role, setRole] = useState(initial?.role ?? 'canary');
  const [share, setShare] = useState(String(initial ? (shareOf(initial) ?? '') : 10));
  const [primaryKey, setPrimaryKey] = useState(initial ? primaryKeyOf(initial) : 'default');
  const write = useMutation({
    mutationFn: () =>
      ok(
        api.PUT('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}', {
          params: { path: { client_id: clientId, domain_id: domainId, assignment_key: key } },
          body: {
            model_id: modelId,
            model_version: version,
            role,
            // Kept as they were (guardrail, tolerances), with the fields of this form over them.
            settings: { ...(initial?.settings ?? {}), primary_key: primaryKey, ...(role === 'canary' ? { share: Number(share) } : {}) },
          },
        }),
      ),
    onSuccess: invalidate,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    write.mutate();
  };
  const title = initial ? `Change ${initial.assignment_key}` : 'New canary or shadow';
  const id = `rollout-form-${initial?.assignment_key ?? 'new'}`;
  return (
    <form onSubmit={submit} aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {!initial && (
        <>
          <Field label="Rollout key" value={key} onChange={setKey} placeholder="fare-v2" />
          <Field label="Candidate's model" value={modelId} onChange={setModelId} />
          <Field label="Candidate's version" value={version} onChange={setVersion} />
          <div className="field">
            <label htmlFor={`${id}-role`}>Role</label>
            <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.target.value)}>
              <option value="canary">canary (a share of the services run it)</option>
              <option value="shadow">shadow (runs beside every primary job, changes nothing)</option>
            </select>
          </div>
          <Field label="Primary key" value={primaryKey} onChange={setPrimaryKey} />
        </>
      )}
      {role === 'canary' && (
        <Field label={`Share of ${initial?.assignment_key ?? 'the'} services (%)`} type="number" value={share} onChange={setShare} />
      )}
      <button type="submit" disabled={!key || !modelId || !version || write.isPending}>
        {initial ? `Set share of ${initial.assignment_key}` : 'Start rollout'}
      </button>
      {write.isSuccess && <p role="status">Rollout {write.data.assignment_key} saved.</p>}
      <ErrorMessage error={write.error} />
    </form>
  );
}

function SideRow({ name, side }: { name: string; side: Side }) {
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>{side.jobs}</td>
      <td>{side.pending + side.running}</td>
      <td>{rate(side.success_rate)}</td>
      <td>{rate(side.failure_rate)}</td>
      <td>{ms(side.latency_ms.p50)}</td>
      <td>{ms(side.latency_ms.p95)}</td>
    </tr>
  );
}

/** The comparison report: each side's counts, rates and latency; a shadow's agreement and disagreeing pairs. */
function Report({ clientId, domainId, assignmentKey }: Keys & { assignmentKey: string }) {
  const { api } = useSession();
  const report = useQuery({
    queryKey: ['rollout', clientId, domainId, assignmentKey, 'report'],
    queryFn: () =>
      ok(
        api.GET('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}/report', {
          params: { path: { client_id: clientId, domain_id: domainId, assignment_key: assignmentKey } },
        }),
      ),
  });
  return (
    <QueryView query={report}>
      {(r) => (
        <>
          <table>
            <caption>
              Report of {assignmentKey} since <When at={r.since} />
              {r.until ? (
                <>
                  {' '}
                  until <When at={r.until} />
                </>
              ) : (
                ' (running)'
              )}
            </caption>
            <thead>
              <tr>
                <th scope="col">Side</th>
                <th scope="col">Jobs</th>
                <th scope="col">Not final</th>
                <th scope="col">Success rate</th>
                <th scope="col">Failure rate</th>
                <th scope="col">Latency p50</th>
                <th scope="col">Latency p95</th>
              </tr>
            </thead>
            <tbody>
              <SideRow name={`primary (${r.primary_key})`} side={r.primary} />
              <SideRow name={`candidate (${r.model_id} v${r.model_version})`} side={r.candidate} />
            </tbody>
          </table>
          {r.agreement && (
            <div>
              <p>
                Agreement: {r.agreement.exact_matches} of {r.agreement.compared} compared pairs equal ({rate(r.agreement.exact_match_rate)})
                {r.agreement.fields.map((f) => ` · ${f.field} within ±${f.tolerance}: ${rate(f.share)}`).join('')}
              </p>
              {r.agreement.disagreements.length > 0 && (
                <ul aria-label={`Disagreeing pairs of ${assignmentKey}`}>
                  {r.agreement.disagreements.map((d) => (
                    <li key={d.shadow_job_id}>
                      <Link href={`/jobs/${d.primary_job_id}`}>primary job {d.primary_job_id}</Link> against{' '}
                      <Link href={`/jobs/${d.shadow_job_id}`}>shadow job {d.shadow_job_id}</Link>
                      {d.fields.length > 0 && `: ${d.fields.join(', ')}`}
                    </li>
                  ))}
                  {r.agreement.disagreements_truncated && <li>More pairs disagree than are listed.</li>}
                </ul>
              )}
            </div>
          )}
        </>
      )}
    </QueryView>
  );
}

function CanarySelection({ clientId, domainId, assignmentKey }: Keys & { assignmentKey: string }) {
  const { api } = useSession();
  const selection = useQuery({
    queryKey: ['rollout', clientId, domainId, assignmentKey, 'canary'],
    queryFn: () =>
      ok(
        api.GET('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}/canary', {
          params: { path: { client_id: clientId, domain_id: domainId, assignment_key: assignmentKey } },
        }),
      ),
  });
  return (
    <QueryView query={selection}>
      {(s) => (
        <>
          <p>
            {s.services.length} of {s.services_total} services run the candidate ({s.selected} selected at {s.share} %):{' '}
            {s.services.join(', ') || 'none'}
          </p>
          {s.blocked.length > 0 && (
            <ul aria-label={`Kept on the primary by ${assignmentKey}`}>
              {s.blocked.map((b) => (
                <li key={`${b.service_id}-${b.feature}`}>
                  {b.service_id} stays on the primary: {b.feature} = {JSON.stringify(b.value)} ({b.reason})
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </QueryView>
  );
}

function ActiveRollout({ clientId, domainId, revision }: Keys & { revision: Revision }) {
  const { api } = useSession();
  const canManage = useCan('manage_domains');
  const invalidate = useInvalidate({ clientId, domainId });
  const [reason, setReason] = useState('');
  const key = revision.assignment_key;
  const path = { client_id: clientId, domain_id: domainId, assignment_key: key };
  const rollback = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}/rollback', {
          params: { path },
          body: reason ? { reason } : {},
        }),
      ),
    onSuccess: invalidate,
  });
  const share = shareOf(revision);
  const guardrail = revision.settings.guardrail as { max_failure_rate?: number; min_jobs?: number } | undefined;
  return (
    <article aria-labelledby={`rollout-${key}`} className="rollout">
      <h3 id={`rollout-${key}`}>
        {revision.role === 'canary' ? 'Canary' : 'Shadow'} {key}: {revision.model_id} v{revision.model_version}
        {share !== undefined ? ` at ${share} %` : ''} against {primaryKeyOf(revision)}
      </h3>
      <p>
        In force since <When at={revision.activated_at} />
        {guardrail
          ? ` · guardrail: rolled back once ${guardrail.min_jobs ?? '?'} jobs finished with a failure rate above ${guardrail.max_failure_rate ?? '?'}`
          : ' · no guardrail'}
      </p>
      {revision.role === 'canary' && <CanarySelection clientId={clientId} domainId={domainId} assignmentKey={key} />}
      <Report clientId={clientId} domainId={domainId} assignmentKey={key} />
      {canManage && (
        <div className="actions">
          {revision.role === 'canary' && <StartRollout clientId={clientId} domainId={domainId} initial={revision} />}
          <PreviewedChange<Schemas['Promotion']>
            label={`promote ${key}`}
            run={(dryRun) =>
              ok(
                api.POST('/v2/clients/{client_id}/domains/{domain_id}/assignments/{assignment_key}/promote', {
                  params: { path, query: { dry_run: dryRun } },
                }),
              )
            }
            describe={(p) => (
              <ul className="preview">
                <li>
                  {primaryKeyOf(revision)} becomes {p.primary.model_id} v{p.primary.model_version}; {key} is archived
                </li>
                <li>Services that move to the candidate: {p.services_moved.join(', ') || 'none'}</li>
                <li>Services already on it: {p.services_already_on_candidate.join(', ') || 'none'}</li>
              </ul>
            )}
            onDone={invalidate}
          />
          <Field label={`Reason to roll back ${key}`} value={reason} onChange={setReason} />
          <ConfirmButton
            label={`Roll back ${key}`}
            question={`Archive ${key}? Its services' next jobs run the primary${revision.role === 'shadow' ? '; shadow jobs stop' : ''}.`}
            onConfirm={() => rollback.mutate()}
            disabled={rollback.isPending}
          />
          <ErrorMessage error={rollback.error} />
        </div>
      )}
    </article>
  );
}

/** The domain's canaries and shadows: in force with their report and actions, and those that left force and why. */
export function Rollouts({ clientId, domainId }: Keys) {
  const canManage = useCan('manage_domains');
  const revisions = useAssignmentRevisions(clientId, domainId);
  return (
    <section aria-labelledby="rollouts">
      <h2 id="rollouts">Rollouts</h2>
      <QueryView query={revisions}>
        {({ items }) => {
          const rollouts = items.filter(isRollout);
          const active = rollouts.filter((r) => r.status === 'active');
          // The end of each rollout: the archived revision that carries why it left force.
          const ended = rollouts.filter((r) => r.status === 'archived' && r.status_reason);
          return (
            <>
              {active.length === 0 && <p>No canary or shadow in force.</p>}
              {active.map((r) => (
                <ActiveRollout key={r.assignment_id} clientId={clientId} domainId={domainId} revision={r} />
              ))}
              <h3>Ended rollouts</h3>
              <Table
                rows={ended}
                rowKey={(r) => r.assignment_id}
                empty="None yet."
                columns={[
                  { header: 'Key', cell: (r) => r.assignment_key },
                  { header: 'Role', cell: (r) => r.role },
                  { header: 'Candidate', cell: (r) => `${r.model_id} v${r.model_version}` },
                  { header: 'Ended', cell: (r) => <When at={r.archived_at} /> },
                  { header: 'By', cell: (r) => r.archived_by ?? '—' },
                  { header: 'Why', cell: (r) => r.status_reason },
                ]}
              />
            </>
          );
        }}
      </QueryView>
      {canManage && <StartRollout clientId={clientId} domainId={domainId} />}
    </section>
  );
}
