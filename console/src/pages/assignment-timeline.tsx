import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Schemas } from '../../../client';
import { ok } from '../api';
import { useSession } from '../session-context';
import { QueryView } from '../components/query-view';
import { Field } from '../components/field';
import { When } from '../components/status';

type Revision = Schemas['Assignment'];

/** Whether a revision was in force at an instant: activated at or before it, and not yet archived. */
function inForceAt(r: Revision, at: number): boolean {
  if (!r.activated_at || Date.parse(r.activated_at) > at) return false;
  return !r.archived_at || Date.parse(r.archived_at) > at;
}

/** Every revision of the domain's assignments, archived ones included: one query for the timeline and the rollouts. */
export function useAssignmentRevisions(clientId: string, domainId: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: ['assignments', clientId, domainId],
    queryFn: () =>
      ok(
        api.GET('/v2/clients/{client_id}/domains/{domain_id}/assignments', {
          params: { path: { client_id: clientId, domain_id: domainId }, query: { status: 'all', limit: 100 } },
        }),
      ),
  });
}

/** Every revision of the domain's assignments, per key and oldest first, with the one in force at a chosen instant marked. */
export function AssignmentTimeline({ clientId, domainId }: { clientId: string; domainId: string }) {
  const [at, setAt] = useState('');
  const revisions = useAssignmentRevisions(clientId, domainId);
  const instant = at ? Date.parse(at) : Date.now();
  return (
    <section aria-labelledby="timeline">
      <h2 id="timeline">Assignments over time</h2>
      <Field label="In force at (empty: now)" type="datetime-local" value={at} onChange={setAt} />
      <QueryView query={revisions}>
        {({ items }) => {
          if (items.length === 0) return <p>No assignments yet.</p>;
          const byKey = new Map<string, Revision[]>();
          for (const r of items) byKey.set(r.assignment_key, [...(byKey.get(r.assignment_key) ?? []), r]);
          return [...byKey].map(([key, list]) => (
            <div key={key} className="timeline">
              <h3>Key {key}</h3>
              <ol>
                {list
                  .sort((a, b) => a.created_at.localeCompare(b.created_at))
                  .map((r) => (
                    <li key={r.assignment_id} className={inForceAt(r, instant) ? 'in-force' : undefined}>
                      <strong>
                        {r.model_id} v{r.model_version}
                      </strong>{' '}
                      from <When at={r.activated_at} /> to {r.archived_at ? <When at={r.archived_at} /> : 'now'}
                      {r.role ? ` · ${r.role}` : ''}
                      {typeof r.settings?.share === 'number' ? ` at ${r.settings.share} %` : ''}
                      {r.created_by ? ` · by ${r.created_by}` : ''}
                      {r.status_reason ? ` · ${r.status_reason}` : ''}
                      {inForceAt(r, instant) && <span className="badge"> in force</span>}
                    </li>
                  ))}
              </ol>
            </div>
          ));
        }}
      </QueryView>
    </section>
  );
}
