'use client';

import { useSyncExternalStore } from 'react';
import { pointerFromHash } from '@/lib/view/json-pointer';

const subscribe = (onChange: () => void) => {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
};

/** The JSON pointer in the URL fragment (`#/request/messages/3`), or null; follows later hash changes. */
export function useHashPointer(): string | null {
  return useSyncExternalStore(
    subscribe,
    () => pointerFromHash(window.location.hash),
    () => null,
  );
}

/** Drops the fragment without a navigation (after the user leaves the node it named). */
export function clearHash(): void {
  if (window.location.hash) history.replaceState(history.state, '', window.location.pathname + window.location.search);
}
