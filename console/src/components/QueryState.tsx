// Loading, error and missing-scope states for one query: a page section renders its content only
// once the data is there, and says which scope is missing on a 403 instead of failing.
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client.js';

export function ErrorNote({ error }: { error: unknown }) {
  if (error instanceof ApiError && error.status === 403) {
    return (
      <div className="note missing-scope" role="alert">
        Your API key lacks the <code>{error.requiredScope ?? 'required'}</code> scope this needs. Ask an admin for a key with it.
      </div>
    );
  }
  if (error instanceof ApiError && error.status === 401) {
    return (
      <div className="note error" role="alert">
        This API key is no longer accepted (revoked?). Sign out and sign in with a valid key.
      </div>
    );
  }
  if (error instanceof ApiError && error.status === 429) {
    return (
      <div className="note error" role="alert">
        Rate limit reached for this key: {error.message}. Try again shortly.
      </div>
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="note error" role="alert">
      Could not load: {message}
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
