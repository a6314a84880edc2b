import { useId } from 'react';

/** A labelled text input (or textarea for JSON). */
export function Field({
  label,
  value,
  onChange,
  multiline,
  placeholder,
  type = 'text',
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  multiline?: boolean;
  placeholder?: string;
  type?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea id={id} rows={5} value={value} onChange={(e) => onChange(e.target.value)} placeholder={placeholder} spellCheck={false} />
      ) : (
        <input id={id} type={type} value={value} onChange={(e) => onChange(e.target.value)} placeholder={placeholder} />
      )}
    </div>
  );
}

/** Parses a JSON field, with the field's name in the error. */
export function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The example a feature-definitions field starts with. */
export const EXAMPLE_FEATURES = JSON.stringify([{ name: 'seats', json_schema: { type: 'integer', minimum: 1 }, mandatory: true }], null, 2);
