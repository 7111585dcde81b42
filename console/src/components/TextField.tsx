// A labelled text input bound to one string: the shape of every field in the console's forms.
import type { InputHTMLAttributes } from 'react';

type Passed = Pick<InputHTMLAttributes<HTMLInputElement>, 'type' | 'autoComplete' | 'placeholder' | 'required' | 'inputMode'>;

export function TextField(props: Passed & { label: string; name: string; value: string; onChange: (value: string) => void }) {
  const { label, onChange, ...input } = props;
  return (
    <label>
      {label}
      <input {...input} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}
