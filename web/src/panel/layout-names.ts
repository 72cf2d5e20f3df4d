import { useEffect, useState } from 'preact/hooks';
import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';

type LayoutSet = 'appointment' | 'ticket' | 'trip';

/** A layout as people know it: its name when it has one, else its ref. */
export type LayoutName = (set: LayoutSet, ref: string | null | undefined) => string;

/**
 * The names of the account's layouts of the given sets (GET /api/v1/layouts/{set}), so a page shows "Gate pass"
 * rather than `demo-ticket`; until they are loaded (or for a layout without a name) the ref shows.
 */
export function useLayoutNames(credential: Credential, sets: LayoutSet[], version = 0): LayoutName {
  const [names, setNames] = useState<Record<string, string>>({});
  useEffect(() => {
    const client = gateClient(credential);
    let current = true;
    void Promise.all(
      sets.map((set) =>
        dataOf(client.GET('/api/v1/layouts/{set}', { params: { path: { set } } })).then(
          (layouts) => layouts.map((layout) => [`${set}:${layout.layout_ref}`, layout.name ?? ''] as const),
          () => [],
        ),
      ),
    ).then((lists) => current && setNames(Object.fromEntries(lists.flat().filter(([, name]) => name))));
    return () => {
      current = false;
    };
  }, [sets.join(), version]);
  return (set, ref) => (ref ? (names[`${set}:${ref}`] ?? ref) : '—');
}
