import { LiveRefresh } from '@/components/live/live-refresh';
import { RunsTable } from '@/components/runs/runs-table';
import { EmptyState } from '@/components/ui/empty-state';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export default async function RunsPage() {
  const { index } = await getInstance();
  const runs = await index.listRuns();
  return (
    <>
      <h1 className="mb-4 text-xl font-semibold">Runs</h1>
      {runs.length === 0 ? (
        <EmptyState title="No runs found in the served paths">
          <p>
            Start callscope with a rollouts file, a capture dir, or a directory holding them: <code className="font-mono">callscope serve PATH</code>.
          </p>
          <p className="mt-3">
            <LiveRefresh runs={null} />
          </p>
        </EmptyState>
      ) : (
        <RunsTable runs={runs} />
      )}
    </>
  );
}
