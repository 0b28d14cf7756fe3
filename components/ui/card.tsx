import type { ReactNode } from 'react';
import { cn } from './cn';

/** A titled panel: the shared chrome of every section. */
export function Card({ title, actions, className, children, id }: { title?: ReactNode; actions?: ReactNode; className?: string; children: ReactNode; id?: string }) {
  return (
    <section id={id} aria-label={typeof title === 'string' ? title : undefined} className={cn('rounded-lg border border-line bg-bg', className)}>
      {title || actions ? (
        <header className="flex flex-wrap items-center gap-3 border-b border-line px-4 py-2.5">
          {title ? <h2 className="text-sm font-semibold">{title}</h2> : null}
          {actions ? <div className="ml-auto flex items-center gap-2">{actions}</div> : null}
        </header>
      ) : null}
      <div className="p-4">{children}</div>
    </section>
  );
}
