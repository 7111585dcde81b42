// Loading, error and missing-scope states for one query: a page section renders its content only
// once the data is there, and says which scope (an API key's) or role (a person's) is missing on a
// 403 instead of failing; other refusals show the API's message.
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError, currentCredential } from '../api/client.js';

export function ErrorNote({ error }: { error: unknown }) {
  const credential = currentCredential();
  const person = credential?.kind === 'session';
  if (error instanceof ApiError && error.status === 403 && error.requiredScope) {
    return (
      <div className="note missing-scope" role="alert">
        {person ? (
          <>
            Your role in this organization (<b>{credential.role}</b>) does not give the <code>{error.requiredScope}</code> access this
            needs. Ask an owner or admin of the organization.
          </>
        ) : (
          <>
            Your API key lacks the <code>{error.requiredScope}</code> scope this needs. Ask an admin for a key with it.
          </>
        )}
      </div>
    );
  }
  if (error instanceof ApiError && error.status === 401) {
    return (
      <div className="note error" role="alert">
        {person
          ? 'Your session has ended (signed out, or it expired). Sign out and sign in again.'
          : 'This API key is no longer accepted (revoked?). Sign out and sign in with a valid key.'}
      </div>
    );
  }
  if (error instanceof ApiError && error.status === 429) {
    return (
      <div className="note error" role="alert">
        Rate limit reached {person ? 'for your session' : 'for this key'}: {error.message}. Try again shortly.
      </div>
    );
  }
  // Any other refusal: the API's own message (it names the field of a 4xx).
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="note error" role="alert" data-error-code={error instanceof ApiError ? error.code : undefined}>
      {error instanceof ApiError && error.status < 500 ? message : `Could not load: ${message}`}
    </div>
  );
}

/** A form's refusal: the API's message (it names the field), or what went wrong on the way. */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div className="note error" role="alert" data-field={error instanceof ApiError ? (error.field ?? undefined) : undefined}>
      {error instanceof ApiError ? error.message : `Could not reach the server: ${error instanceof Error ? error.message : String(error)}`}
    </div>
  );
}

export function QueryState<T>({ query, children, label }: { query: UseQueryResult<T>; children: (data: T) => ReactNode; label?: string }) {
  if (query.isPending)
    return (
      <div className="loading" aria-busy="true">
        Loading{label ? ` ${label}` : ''}…
      </div>
    );
  if (query.isError) return <ErrorNote error={query.error} />;
  return <>{children(query.data)}</>;
}
