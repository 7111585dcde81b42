// A secret the API answers only once (an invitation link, an API key, a signing secret): shown in
// read-only fields to copy, with what the reader must know, never kept after the page is left.
import type { ReactNode } from 'react';

export function ShownOnce(props: { id: string; children: ReactNode; values: ReadonlyArray<readonly [label: string, value: string]> }) {
  return (
    <div className="note shown-once" data-shown-once={props.id}>
      <p>{props.children}</p>
      {props.values.map(([label, value]) => (
        <span key={label} className="shown-once-row">
          <input readOnly className="shown-once-value" aria-label={label} value={value} onFocus={(e) => e.target.select()} />
          <button type="button" onClick={() => void navigator.clipboard?.writeText(value)}>
            Copy
          </button>
        </span>
      ))}
    </div>
  );
}
