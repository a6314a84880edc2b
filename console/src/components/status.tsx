/** A status word, coloured by what it means (final good, final bad, in progress). */
export function Status({ value }: { value: string }) {
  const tone = ['success', 'active', 'available', 'succeeded'].includes(value)
    ? 'good'
    : ['failure', 'failed', 'timed_out', 'failing', 'suspended', 'stale'].includes(value)
      ? 'bad'
      : 'neutral';
  return <span className={`status status-${tone}`}>{value}</span>;
}

/** A JSON value, pretty-printed, labelled for screen readers. */
export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {value === undefined || value === null ? '—' : JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** An instant in the reader's time zone, with the ISO value on hover. */
export function When({ at }: { at?: string | null }) {
  if (!at) return <>—</>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

/** A shadow job: it ran a candidate beside its primary job and changed nothing. */
export function ShadowMark() {
  return (
    <span className="badge shadow" title="Ran a shadow candidate beside its primary job; it changed nothing">
      shadow (changes nothing)
    </span>
  );
}
