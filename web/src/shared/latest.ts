import { useState } from 'preact/hooks';

/**
 * Loads of one view that may overlap (a push, a reconnect, a new filter or range): `begin()` marks a new load and
 * gives it a test that holds while no later load has begun, so an answer that comes late never draws over a later
 * one's; `drop()` makes every load begun so far stale without beginning another (nothing was asked).
 */
export interface Latest {
  begin(): () => boolean;
  drop(): void;
}

export function latestLoads(): Latest {
  let begun = 0;
  return {
    begin() {
      const mine = ++begun;
      return () => mine === begun;
    },
    drop() {
      begun++;
    },
  };
}

/** The component's `Latest`, the same one at every render. */
export function useLatest(): Latest {
  return useState(latestLoads)[0];
}
