import type { ReactNode } from 'react';
import { cn } from './cn';

const TONES = {
  neutral: 'border-line bg-panel text-muted',
  accent: 'border-accent/40 bg-accent/10 text-accent',
  good: 'border-good/40 bg-good/10 text-good',
  warn: 'border-warn/40 bg-warn/10 text-warn',
  bad: 'border-bad/40 bg-bad/10 text-bad',
} as const;

export type Tone = keyof typeof TONES;

export function Badge({ tone = 'neutral', title, className, children }: { tone?: Tone; title?: string; className?: string; children: ReactNode }) {
  return (
    <span title={title} className={cn('inline-flex max-w-full items-center truncate rounded border px-1.5 py-px text-[11px] leading-4 font-medium whitespace-nowrap', TONES[tone], className)}>
      {children}
    </span>
  );
}
