import { serverColor } from '@/components/charts/palette';

/** Which colour is which model server, and what the marks on a bar mean. */
export function TimelineLegend({ servers, hasUnnamed }: { servers: string[]; hasUnnamed: boolean }) {
  const entries = [...servers, ...(hasUnnamed ? ['(no server)'] : [])];
  return (
    <ul className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-muted" aria-label="timeline legend">
      {entries.map((name, g) => (
        <li key={name} className="flex items-center gap-1.5">
          <span className="inline-block h-2.5 w-4 rounded-sm" style={{ background: serverColor(g, servers.length) }} />
          {name}
        </li>
      ))}
      <li className="flex items-center gap-1.5">
        <span className="inline-block h-2.5 w-4 rounded-sm border-2 border-bad" /> error
      </li>
      <li className="flex items-center gap-1.5">
        <span className="inline-block h-2.5 w-4 rounded-sm bg-[repeating-linear-gradient(135deg,var(--warn)_0_2px,transparent_2px_5px)]" /> truncated / incomplete stream
      </li>
      <li className="flex items-center gap-1.5">
        <span className="inline-block h-2.5 w-0.5 bg-fg" /> time to first token
      </li>
    </ul>
  );
}
