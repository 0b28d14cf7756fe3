import { Card } from '@/components/ui/card';
import type { Compare } from '@/lib/api/compare-schemas';
import type { PairBy } from '@/lib/rollouts/task-changes';
import { countsTable, distributionsTable, latencyTable, serversTable, tasksTable, totalsTable, type TaskSort } from '@/lib/view/compare';
import { CompareTableView } from './compare-table-view';
import { DistributionPlots } from './distribution-plots';
import { PassAtKTable } from './pass-at-k-table';
import { RewardTokensScatter } from './reward-tokens-scatter';
import { TableCsvButton } from './table-csv-button';
import { TaskChangesCard } from './task-changes';
import { TaskSortLinks } from './task-sort-links';

const TASKS_SHOWN = 200;

/** Every section of a comparison, side by side per run. */
export function CompareView({ comparison, taskSort, pairHref }: { comparison: Compare; taskSort: TaskSort; pairHref: (by: PairBy) => string }) {
  const runs = comparison.runs.map((r) => r.run);
  const tasks = tasksTable(comparison, taskSort);
  return (
    <div className="space-y-5">
      <CompareTableView table={totalsTable(comparison)} runs={runs} />
      <PassAtKTable runs={comparison.pass_at_k} />
      {comparison.task_changes ? <TaskChangesCard changes={comparison.task_changes} runs={[runs[0], runs[1]]} pairHref={pairHref} /> : null}
      <div className="grid gap-5 xl:grid-cols-2 [&>*]:min-w-0">
        <Card title="Per-rollout distributions" actions={<TableCsvButton table={distributionsTable(comparison)} runs={runs} />}>
          <DistributionPlots comparison={comparison} />
        </Card>
        <RewardTokensScatter runs={runs} />
      </div>
      <CompareTableView table={serversTable(comparison)} runs={runs} empty="No calls." />
      <CompareTableView table={latencyTable(comparison)} runs={runs} />
      <div className="grid gap-5 lg:grid-cols-2 [&>*]:min-w-0">
        <CompareTableView table={countsTable(comparison, 'errors', 'Error categories (calls)', 'error category', (r) => r.calls.error_categories)} runs={runs} empty="No call errors." />
        <CompareTableView table={countsTable(comparison, 'gaps', 'Gaps (rollouts)', 'gap code', (r) => r.gaps)} runs={runs} empty="No gaps." />
      </div>
      <div id="tasks">
        <CompareTableView
          table={tasks}
          runs={runs}
          limit={TASKS_SHOWN}
          actions={comparison.tasks.length ? <TaskSortLinks runs={runs} sort={taskSort} /> : null}
          note={comparison.task_relation.same ? comparison.task_relation.reason : null}
          empty={comparison.task_relation.reason}
        />
      </div>
    </div>
  );
}
