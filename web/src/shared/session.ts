/**
 * Keys and tokens live only in this tab's session storage: gone when the tab closes, never in a cookie
 * (so no request carries them unasked), never in a URL the service sees.
 */
export const session = {
  get(name: string): string | null {
    try {
      return sessionStorage.getItem(name);
    } catch {
      return null;
    }
  },
  set(name: string, value: string): void {
    sessionStorage.setItem(name, value);
  },
  remove(...names: string[]): void {
    for (const name of names) sessionStorage.removeItem(name);
  },
};
