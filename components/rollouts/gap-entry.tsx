import type { ReactNode } from 'react';
import { gapCount, gapInfo } from '@/lib/capture/vocabulary';

/** One gap, explained: its title and code, what it means, and what it means for the numbers; `where` names its place. */
export function GapEntry({ code, detail, where }: { code: string; detail?: string | null; where?: ReactNode }) {
  const m = gapInfo(code);
  const count = gapCount(detail ?? undefined);
  return (
    <li className="rounded-md border border-warn/40 bg-warn/5 px-3 py-2 text-sm">
      <p className="font-medium">
        {m.title}
        {count !== null ? `: ${count} line${count === 1 ? '' : 's'}` : null} <code className="ml-1 font-mono text-xs text-muted">{code}</code>
        {detail ? <code className="ml-1 font-mono text-xs text-muted">({detail})</code> : null}
        {where ? <span className="ml-2 text-xs font-normal text-muted">{where}</span> : null}
      </p>
      <p className="mt-1 text-muted">{m.meaning}</p>
      <p className="mt-1">
        <span className="font-medium text-warn">For the numbers: </span>
        {count !== null ? `${count} damaged line${count === 1 ? ' is' : 's are'} excluded from the metrics. ` : null}
        {m.numbers}
      </p>
    </li>
  );
}
