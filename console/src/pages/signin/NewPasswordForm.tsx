// The card both link pages share (an invitation, a password reset): a password typed twice, the
// two compared here, everything else judged by the API, whose refusal (naming the field) is shown.
import type { UseMutationResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { FormError } from '../../components/QueryState.js';
import { TextField } from '../../components/TextField.js';

export function NewPasswordForm<T>(props: {
  name: string;
  title: string;
  intro: ReactNode;
  submitLabel: string;
  /** Runs with the password typed. */
  save: UseMutationResult<T, Error, string>;
}) {
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    props.save.mutate(password);
  };
  return (
    <div className="signin">
      <form className="signin-card" onSubmit={submit} data-form={props.name}>
        <h1>{props.title}</h1>
        <p>{props.intro}</p>
        <TextField
          label="Password"
          type="password"
          name="new-password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
        />
        <TextField
          label="Password again"
          type="password"
          name="repeat-password"
          autoComplete="new-password"
          value={repeated}
          onChange={setRepeated}
        />
        {repeated !== '' && repeated !== password && <div className="note warning">The two passwords differ.</div>}
        <FormError error={props.save.error} />
        <button type="submit" disabled={props.save.isPending || password === '' || repeated !== password}>
          {props.save.isPending ? 'Saving…' : props.submitLabel}
        </button>
      </form>
    </div>
  );
}
