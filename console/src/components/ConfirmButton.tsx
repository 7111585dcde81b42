// A destructive action asked twice in place (no browser dialog): the first click shows what will
// happen and a way back, the second does it.
import { useState } from 'react';

export function ConfirmButton(props: { label: string; confirmLabel: string; busy: boolean; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <button type="button" className="danger" disabled={props.busy} onClick={props.onConfirm}>
        {props.confirmLabel}
      </button>
      <button type="button" className="link" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}
