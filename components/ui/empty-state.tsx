import type { ReactNode } from 'react';
import { cn } from './cn';

export function EmptyState({ title, children, className }: { title: string; children?: ReactNode; className?: string }) {
  return (
    <div className={cn('rounded-lg border border-dashed border-line px-6 py-10 text-center', className)}>
      <p className="font-medium">{title}</p>
      {children ? <div className="mt-2 text-sm text-muted">{children}</div> : null}
    </div>
  );
}
