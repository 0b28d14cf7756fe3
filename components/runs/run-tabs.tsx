import Link from 'next/link';
import type { ReactNode } from 'react';
import { cn } from '@/components/ui/cn';

const TABS = [
  { key: 'rollouts', label: 'Rollouts', path: '' },
  { key: 'tasks', label: 'Tasks', path: '/tasks' },
] as const;

/** The run's views: its rollouts and its task groups. */
export function RunTabs({ run, active, children }: { run: string; active: (typeof TABS)[number]['key']; children?: ReactNode }) {
  return (
    <nav aria-label="run views" className="mb-4 flex gap-1 border-b border-line text-sm">
      {TABS.map((t) => (
        <Link
          key={t.key}
          href={`/runs/${encodeURIComponent(run)}${t.path}`}
          aria-current={t.key === active ? 'page' : undefined}
          className={cn('-mb-px border-b-2 border-transparent px-3 py-1.5 text-muted hover:text-fg', t.key === active && 'border-accent font-medium text-fg')}
        >
          {t.label}
        </Link>
      ))}
      {children ? <div className="ml-auto self-center pb-1">{children}</div> : null}
    </nav>
  );
}
