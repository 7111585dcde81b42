// The API key the person typed, kept for this browser tab only (sessionStorage: gone when the tab
// closes, never shared with other tabs, never in the URL or localStorage).
const STORAGE_KEY = 'marginal.apiKey';

export function storedApiKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeApiKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, key);
}
