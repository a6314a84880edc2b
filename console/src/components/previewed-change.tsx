import { useState, type ReactNode } from 'react';
import type { Schemas } from '../../../client';
import { blockingServicesOf } from '../errors';
import { ErrorMessage } from './query-view';
import { Json } from './status';

type Preview = Schemas['ChangePreview'];

function PreviewSummary({ preview }: { preview: Preview }) {
  const { resolved_features_changes: changes, inference, stale_subscriptions: stale, assignments } = preview;
  return (
    <ul className="preview">
      <li>
        Blocking services: {preview.blocking_services.length ? preview.blocking_services.map((b) => b.service_id).join(', ') : 'none'}
      </li>
      <li>
        Services whose resolved features change: {changes.length ? changes.map((c) => c.service_id).join(', ') : 'none'}
        {changes.length > 0 && <Json label="Resolved feature changes" value={changes} />}
      </li>
      <li>Inference would run: {inference.would_run ? `yes, for ${inference.service_ids.join(', ')}` : 'no'}</li>
      {stale.length > 0 && <li>Subscriptions that would turn stale: {stale.join(', ')}</li>}
      {assignments && assignments.length > 0 && <li>Active assignments binding it: {assignments.length}</li>}
    </ul>
  );
}

type ChangeAnswer = { preview?: Preview; compatibility?: unknown };

function ChangeSummary({ result }: { result: ChangeAnswer }) {
  return (
    <>
      {result.preview ? <PreviewSummary preview={result.preview} /> : <p>The API accepts this change.</p>}
      {result.compatibility !== undefined && <Json label="Compatibility" value={result.compatibility} />}
    </>
  );
}

/**
 * A change that can block or cascade: it runs with `?dry_run=true` first and shows the API's answer (the preview, or
 * the refusal naming the blocking services); only then can the user confirm the real call.
 */
export function PreviewedChange<T extends object>({
  label,
  run,
  onDone,
  describe,
}: {
  label: string;
  /** What the dry run's answer says will change; without it, the answer's ChangePreview and compatibility. */
  describe?: (result: T) => ReactNode;
  /** The typed call, dry or real. */
  run: (dryRun: boolean) => Promise<T>;
  onDone?: (result: T) => void;
}) {
  const [state, setState] = useState<
    { step: 'idle' } | { step: 'busy' } | { step: 'previewed'; result: T } | { step: 'refused'; error: unknown } | { step: 'done' }
  >({ step: 'idle' });
  const preview = async () => {
    setState({ step: 'busy' });
    try {
      setState({ step: 'previewed', result: await run(true) });
    } catch (error) {
      setState({ step: 'refused', error });
    }
  };
  const confirm = async () => {
    setState({ step: 'busy' });
    try {
      const result = await run(false);
      setState({ step: 'done' });
      onDone?.(result);
    } catch (error) {
      setState({ step: 'refused', error });
    }
  };
  return (
    <div className="change" aria-live="polite">
      <button type="button" onClick={() => void preview()} disabled={state.step === 'busy'}>
        Preview: {label}
      </button>
      {state.step === 'busy' && <p aria-busy="true">Asking the API…</p>}
      {state.step === 'refused' && (
        <section aria-label="Refused" className="refused">
          <ErrorMessage error={state.error} />
          {blockingServicesOf(state.error).length > 0 && (
            <ul>
              {blockingServicesOf(state.error).map((b) => (
                <li key={`${b.service_id}-${b.feature ?? ''}`}>
                  Service <strong>{b.service_id}</strong> blocks it
                  {b.feature ? `: feature ${b.feature} = ${JSON.stringify(b.value)}` : ''}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {state.step === 'previewed' && (
        <section aria-label="Preview" className="previewed">
          <h3>Preview (nothing changed yet)</h3>
          {describe ? describe(state.result) : <ChangeSummary result={state.result} />}
          <button type="button" onClick={() => void confirm()}>
            Confirm: {label}
          </button>{' '}
          <button type="button" onClick={() => setState({ step: 'idle' })}>
            Back
          </button>
        </section>
      )}
      {state.step === 'done' && <p role="status">Done: {label}.</p>}
    </div>
  );
}
