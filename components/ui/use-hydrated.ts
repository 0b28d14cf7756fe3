'use client';

import { useSyncExternalStore } from 'react';

const subscribe = () => () => {};

/** False while rendering on the server and hydrating, true after: lets output depend on the viewer's zone. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
