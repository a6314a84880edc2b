import { lazy, Suspense } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ok } from '../api';
import { useSession } from '../session-context';
import { QueryView } from '../components/query-view';
import { Status } from '../components/status';
import { Table } from '../components/table';
import { CreateModel } from './registry-writes';

const Graph = lazy(() => import('../components/graph').then((m) => ({ default: m.Graph })));

/** Which model's completion starts which model: every subscription of every model, as one graph. */
function SubscriptionGraph({ modelIds }: { modelIds: string[] }) {
  const { api } = useSession();
  const subscriptions = useQuery({
    queryKey: ['subscriptions', modelIds],
    queryFn: async () =>
      (
        await Promise.all(
          modelIds.map(
            async (id) => (await ok(api.GET('/v2/models/{model_id}/event-subscriptions', { params: { path: { model_id: id } } }))).items,
          ),
        )
      ).flat(),
  });
  return (
    <section aria-labelledby="subscriptions">
      <h2 id="subscriptions">Subscriptions</h2>
      <QueryView query={subscriptions}>
        {(subs) =>
          subs.length === 0 ? (
            <p>No subscriptions: no model's completion starts another.</p>
          ) : (
            <>
              <Suspense fallback={<p aria-busy="true">Drawing…</p>}>
                <Graph
                  title="Subscriptions: an arrow from a model to the model its completion starts"
                  nodes={[...new Set(subs.flatMap((s) => [s.source_model_id, s.target_model_id]))].map((id) => ({
                    id,
                    label: id,
                    href: `/registry/${id}`,
                  }))}
                  edges={subs.filter((s) => s.status === 'active').map((s) => ({ from: s.source_model_id, to: s.target_model_id }))}
                />
              </Suspense>
              <ul>
                {subs.map((s) => (
                  <li key={s.subscription_id}>
                    {s.source_model_id} <em>{s.trigger_event}</em> → {s.target_action} of {s.target_model_id} ({s.input_source}){' '}
                    <Status value={s.status} />
                  </li>
                ))}
              </ul>
            </>
          )
        }
      </QueryView>
    </section>
  );
}

export function Registry() {
  const { api, caller } = useSession();
  const models = useQuery({ queryKey: ['models'], queryFn: () => ok(api.GET('/v2/models', { params: { query: { limit: 100 } } })) });
  return (
    <>
      <h1>Registry</h1>
      <QueryView query={models}>
        {({ items }) => (
          <>
            <section aria-labelledby="models">
              <h2 id="models">Models</h2>
              <Table
                rows={items}
                rowKey={(m) => m.id}
                empty="No models registered."
                columns={[
                  { header: 'Model', cell: (m) => <Link href={`/registry/${m.id}`}>{m.id}</Link> },
                  { header: 'Name', cell: (m) => m.name },
                  { header: 'Status', cell: (m) => <Status value={m.status} /> },
                  { header: 'Training handler', cell: (m) => m.handlers.training.type },
                  { header: 'Inference handler', cell: (m) => m.handlers.inference.type },
                ]}
              />
            </section>
            <SubscriptionGraph modelIds={items.map((m) => m.id)} />
          </>
        )}
      </QueryView>
      {caller.platform && <CreateModel />}
    </>
  );
}
