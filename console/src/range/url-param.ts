// A page's own view state kept in the URL beside the range (?split=provider, ?dimension=team), so
// a link reproduces the whole view.
import { useLocation, useSearch } from 'wouter';

export function useUrlParam(name: string, fallback: string): [string, (value: string | null) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const value = new URLSearchParams(search).get(name) ?? fallback;
  const set = (v: string | null) => {
    const p = new URLSearchParams(search);
    if (v === null || v === '') p.delete(name);
    else p.set(name, v);
    navigate(`${location}?${p.toString()}`);
  };
  return [value, set];
}
