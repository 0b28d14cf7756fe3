import type { ReactNode } from 'react';

// The few icons drawn on every row of the payload tree, as plain SVG with lucide's shapes and attributes.
// A lucide-react icon is two forwardRef components, a context read and an attribute-building pass per
// instance; a tree mounts three per row, which showed as a visible part of the render that first shows a
// payload (profiled on a loaded machine).

function Svg({ name, size, children }: { name: string; size: number; children: ReactNode }) {
  return (
    <svg xmlns="http://www.w3.org/2000/svg" width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" className={`lucide lucide-${name}`} aria-hidden="true">
      {children}
    </svg>
  );
}

export const CopyIcon = ({ size }: { size: number }) => (
  <Svg name="copy" size={size}>
    <rect width="14" height="14" x="8" y="8" rx="2" ry="2" />
    <path d="M4 16c-1.1 0-2-.9-2-2V4c0-1.1.9-2 2-2h10c1.1 0 2 .9 2 2" />
  </Svg>
);

export const LinkIcon = ({ size }: { size: number }) => (
  <Svg name="link-2" size={size}>
    <path d="M9 17H7A5 5 0 0 1 7 7h2" />
    <path d="M15 7h2a5 5 0 1 1 0 10h-2" />
    <line x1="8" x2="16" y1="12" y2="12" />
  </Svg>
);

export const CheckIcon = ({ size }: { size: number }) => (
  <Svg name="check" size={size}>
    <path d="M20 6 9 17l-5-5" />
  </Svg>
);

export const ChevronDownIcon = ({ size }: { size: number }) => (
  <Svg name="chevron-down" size={size}>
    <path d="m6 9 6 6 6-6" />
  </Svg>
);

export const ChevronRightIcon = ({ size }: { size: number }) => (
  <Svg name="chevron-right" size={size}>
    <path d="m9 18 6-6-6-6" />
  </Svg>
);
