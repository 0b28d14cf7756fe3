import Link from 'next/link';
import { LiveRefresh } from '@/components/live/live-refresh';
import { runColor } from '@/lib/view/compare';

/** The compared runs, each in the color the charts use for it, linking to its rollouts. */
export function CompareHeader({ runs }: { runs: string[] }) {
  return (
    <header className="mb-4 space-y-2">
      <nav aria-label="breadcrumb" className="text-sm text-muted">
        <Link href="/" className="hover:text-fg">
          Runs
        </Link>{' '}
        / <span className="text-fg">Compare</span>
      </nav>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">Compare {runs.length} runs</h1>
        {runs.map((run, i) => (
          <Link key={run} href={`/runs/${encodeURIComponent(run)}`} className="inline-flex items-center gap-1.5 rounded-full border border-line px-2.5 py-0.5 text-sm hover:bg-panel">
            <span className="size-2.5 rounded-full" style={{ background: runColor(i) }} />
            {run}
          </Link>
        ))}
        <span className="ml-auto">
          <LiveRefresh runs={runs} />
        </span>
      </div>
    </header>
  );
}
