import { serverColor } from '@/components/charts/palette';

const SWATCH = 'inline-block h-2.5 w-4 rounded-sm';

/** What the colours and marks of the trajectory mean. */
export function TrajectoryLegend({ servers }: { servers: string[] }) {
  return (
    <ul className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-muted" aria-label="trajectory legend">
      {servers.map((name, g) => (
        <li key={name} className="flex items-center gap-1.5">
          <span className={SWATCH} style={{ background: serverColor(g, servers.length) }} /> {name}
        </li>
      ))}
      <li className="flex items-center gap-1.5">
        <span className={`${SWATCH} bg-[#14b8a6]`} /> tool call
      </li>
      <li className="flex items-center gap-1.5">
        <span className={`${SWATCH} bg-bad`} /> failed / timed out
      </li>
      <li className="flex items-center gap-1.5">
        <span className={`${SWATCH} border border-dashed border-[#94a3b8] bg-[repeating-linear-gradient(135deg,#94a3b8_0_2px,transparent_2px_5px)]`} /> not measured (between its calls)
      </li>
      <li className="flex items-center gap-1.5">
        <span className="inline-block h-1 w-4 bg-[#a78bfa]" /> sandbox run
      </li>
      <li className="flex items-center gap-1.5">
        <span className="inline-block h-3 w-0.5 bg-warn" /> compaction
      </li>
    </ul>
  );
}
