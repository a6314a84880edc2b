import { useState } from 'react';

/** A button that asks once more before acting; the second step names what will happen. */
export function ConfirmButton({
  label,
  question,
  onConfirm,
  disabled,
}: {
  label: string;
  question: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" onClick={() => setAsking(true)} disabled={disabled}>
        {label}
      </button>
    );
  return (
    <span role="group" aria-label={question} className="confirm">
      <span>{question}</span>{' '}
      <button
        type="button"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Confirm
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Back
      </button>
    </span>
  );
}
