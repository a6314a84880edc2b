import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import type { Schemas } from '../../../client';
import { ok } from '../api';
import { useSession } from '../session-context';
import { ErrorMessage, QueryView } from '../components/query-view';
import { Status } from '../components/status';
import { EXAMPLE_FEATURES, Field, parseJson } from '../components/field';
import { Table } from '../components/table';
import { ConfirmButton } from '../components/confirm-button';
import { PreviewedChange } from '../components/previewed-change';

// The shared registry's writes are platform-only (a platform machine client or a user in group admin): the pages
// offer these forms to such callers only, and the API's 403 is shown as any refusal.

const EXAMPLE_HANDLERS = JSON.stringify(
  { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } },
  null,
  2,
);
// `training` is entered by starting a training job, not set here.
const VERSION_STATUSES = ['pending', 'active', 'failed', 'deprecated', 'archived'] as const;

/** A model with its first version (pending until activated). */
export function CreateModel() {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [features, setFeatures] = useState(EXAMPLE_FEATURES);
  const [handlers, setHandlers] = useState(EXAMPLE_HANDLERS);
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/v2/models', {
          body: {
            id,
            name,
            description,
            metadata: {},
            features: parseJson<Schemas['FeatureDefinitions']>(features, 'Features'),
            handlers: parseJson<Schemas['Handlers']>(handlers, 'Handlers'),
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['models'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-model">
      <h2 id="new-model">New model</h2>
      <Field label="Model id" value={id} onChange={setId} placeholder="fare" />
      <Field label="Model name" value={name} onChange={setName} placeholder="Fare" />
      <Field label="Description" value={description} onChange={setDescription} />
      <Field label="Features of version 1 (JSON)" value={features} onChange={setFeatures} multiline />
      <Field label="Handlers (JSON)" value={handlers} onChange={setHandlers} multiline />
      <button type="submit" disabled={!id || !name || create.isPending}>
        Create model
      </button>
      {create.isSuccess && (
        <p role="status">
          Model <Link href={`/registry/${create.data.model.id}`}>{create.data.model.id}</Link> created with version 1 (pending).
        </p>
      )}
      <ErrorMessage error={create.error} />
    </form>
  );
}

export function CreateVersion({ modelId }: { modelId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [version, setVersion] = useState('');
  const [features, setFeatures] = useState(EXAMPLE_FEATURES);
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/v2/models/{model_id}/versions', {
          params: { path: { model_id: modelId } },
          body: { version, features: parseJson<Schemas['FeatureDefinitions']>(features, 'Features') },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['versions', modelId] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-version">
      <h2 id="new-version">New version</h2>
      <Field label="Version" value={version} onChange={setVersion} placeholder="2" />
      <Field label="Feature freeze (JSON)" value={features} onChange={setFeatures} multiline />
      <button type="submit" disabled={!version || create.isPending}>
        Create version
      </button>
      {create.isSuccess && <p role="status">Version {create.data.version} created (pending).</p>}
      <ErrorMessage error={create.error} />
    </form>
  );
}

/** A version's status, previewed with ?dry_run=true (what it would break) before it is confirmed. */
export function VersionStatus({ modelId }: { modelId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [version, setVersion] = useState('');
  const [status, setStatus] = useState<(typeof VERSION_STATUSES)[number]>('active');
  return (
    <section aria-labelledby="version-status">
      <h2 id="version-status">Change a version&apos;s status</h2>
      <Field label="Version to change" value={version} onChange={setVersion} />
      <div className="field">
        <label htmlFor="version-status-new">New status</label>
        <select id="version-status-new" value={status} onChange={(e) => setStatus(e.target.value as (typeof VERSION_STATUSES)[number])}>
          {VERSION_STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      <PreviewedChange
        key={`${version}/${status}`}
        label={`set version ${version || '…'} ${status}`}
        run={(dryRun) =>
          ok(
            api.PUT('/v2/models/{model_id}/versions/{model_version}/new_status', {
              params: { path: { model_id: modelId, model_version: version }, query: { dry_run: dryRun } },
              body: { status },
            }),
          )
        }
        onDone={() => void queryClient.invalidateQueries({ queryKey: ['versions', modelId] })}
      />
    </section>
  );
}

function CreateSubscription({ modelId }: { modelId: string }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [event, setEvent] = useState<'inference_complete' | 'training_complete'>('inference_complete');
  const [target, setTarget] = useState('');
  const [source, setSource] = useState<'trigger_output' | 'stored'>('trigger_output');
  const [input, setInput] = useState('{}');
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/v2/models/{model_id}/event-subscriptions', {
          params: { path: { model_id: modelId } },
          body: {
            trigger_event: event,
            target_model_id: target,
            target_action: 'inference',
            input_source: source,
            // The API checks a stored input against the target's inference input schema and refuses one that does not fit.
            ...(source === 'stored' ? { input: parseJson<Record<string, unknown>>(input, 'Stored input') } : {}),
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['model-subscriptions', modelId] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-subscription">
      <h3 id="new-subscription">New subscription</h3>
      <div className="field">
        <label htmlFor="new-subscription-event">When {modelId}&apos;s</label>
        <select id="new-subscription-event" value={event} onChange={(e) => setEvent(e.target.value as typeof event)}>
          <option value="inference_complete">inference completes</option>
          <option value="training_complete">training completes</option>
        </select>
      </div>
      <Field label="Run the inference of model" value={target} onChange={setTarget} />
      <div className="field">
        <label htmlFor="new-subscription-source">With the input</label>
        <select id="new-subscription-source" value={source} onChange={(e) => setSource(e.target.value as typeof source)}>
          <option value="trigger_output">the completed job&apos;s output</option>
          <option value="stored">stored here</option>
        </select>
      </div>
      {source === 'stored' && <Field label="Stored input (JSON)" value={input} onChange={setInput} multiline />}
      <button type="submit" disabled={!target || create.isPending}>
        Create subscription
      </button>
      {create.isSuccess && <p role="status">Subscription {create.data.subscription_id} created.</p>}
      <ErrorMessage error={create.error} />
    </form>
  );
}

function SubscriptionActions({ modelId, subscription }: { modelId: string; subscription: Schemas['Subscription'] }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const path = { model_id: modelId, subscription_id: subscription.subscription_id };
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['model-subscriptions', modelId] });
  const next = subscription.status === 'active' ? 'disabled' : 'active';
  const status = useMutation({
    mutationFn: () =>
      ok(api.PUT('/v2/models/{model_id}/event-subscriptions/{subscription_id}/new_status', { params: { path }, body: { status: next } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/v2/models/{model_id}/event-subscriptions/{subscription_id}', { params: { path } })),
    onSuccess: refresh,
  });
  return (
    <>
      <button type="button" onClick={() => status.mutate()} disabled={status.isPending}>
        {next === 'disabled' ? 'Pause' : 'Resume'} subscription to {subscription.target_model_id}
      </button>{' '}
      <ConfirmButton
        label={`Delete subscription to ${subscription.target_model_id}`}
        // The API's DELETE disables the subscription and keeps it listed, as a pause would; it stays for the history.
        question={`Delete it? ${modelId}'s completions stop starting ${subscription.target_model_id}; it stays listed as disabled.`}
        onConfirm={() => remove.mutate()}
      />
      <ErrorMessage error={status.error ?? remove.error} />
    </>
  );
}

/** The subscriptions of one model: its completions start the targets' inference. */
export function ModelSubscriptions({ modelId }: { modelId: string }) {
  const { api, caller } = useSession();
  const subscriptions = useQuery({
    queryKey: ['model-subscriptions', modelId],
    queryFn: () => ok(api.GET('/v2/models/{model_id}/event-subscriptions', { params: { path: { model_id: modelId } } })),
  });
  return (
    <section aria-labelledby="model-subscriptions">
      <h2 id="model-subscriptions">Subscriptions of {modelId}</h2>
      <QueryView query={subscriptions}>
        {({ items }) => (
          <Table
            rows={items}
            rowKey={(s) => s.subscription_id}
            empty="None: this model's completions start nothing."
            columns={[
              { header: 'When', cell: (s) => s.trigger_event },
              { header: 'Starts', cell: (s) => <Link href={`/registry/${s.target_model_id}`}>{s.target_model_id}</Link> },
              { header: 'Input', cell: (s) => s.input_source },
              { header: 'Status', cell: (s) => <Status value={s.status} /> },
              ...(caller.platform
                ? [{ header: 'Change', cell: (s: Schemas['Subscription']) => <SubscriptionActions modelId={modelId} subscription={s} /> }]
                : []),
            ]}
          />
        )}
      </QueryView>
      {caller.platform && <CreateSubscription modelId={modelId} />}
    </section>
  );
}
