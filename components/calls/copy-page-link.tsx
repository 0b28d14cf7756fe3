'use client';

import { CopyButton } from './copy-button';

/** Copies the address of this page (without a payload pointer): the link to share a call. */
export function CopyPageLink({ label }: { label: string }) {
  return <CopyButton kind="link" label={label} showLabel text={() => `${location.origin}${location.pathname}`} className="border border-line px-2 py-1" />;
}
