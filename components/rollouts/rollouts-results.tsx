'use client';

import { LiveIndicator } from '@/components/live/live-indicator';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { formatCount } from '@/lib/view/format';
import { activeFilters, type RolloutView, type SortKey, type SortOrder } from '@/lib/view/table';
import { ExportCsvButton } from './export-csv-button';
import type { RolloutPage } from '@/lib/api/schemas';
import { RolloutsTable } from './rollouts-table';
import { useRolloutPages } from './use-rollout-pages';

interface Props {
  run: string;
  /** The view the server rendered `initial` for (the URL may already be ahead while it loads). */
  view: RolloutView;
  initial: RolloutPage;
  onSort: (key: SortKey) => void;
  busy: boolean;
  /** The order the URL asks for: the headers show it at once, while the server renders its first page. */
  shownSort: { sort: SortKey; order: SortOrder };
}

/** The total, export and live state of a view over its table; loads more pages as the table scrolls. */
export function RolloutsResults({ run, view, initial, onSort, busy, shownSort }: Props) {
  const { rollouts, total, next_cursor, loadingMore, error, changed, loadMore, live } = useRolloutPages(run, view, initial);
  const filtered = activeFilters(view) > 0;
  const footer = (
    <div className="px-3 py-2 text-center text-xs text-muted" aria-live="polite">
      {error ? (
        <span className="text-bad">
          {error}{' '}
          <Button variant="ghost" onClick={() => void loadMore()}>
            Retry
          </Button>
        </span>
      ) : loadingMore ? (
        'Loading more rollouts…'
      ) : next_cursor ? null : rollouts.length > 20 ? (
        `All ${formatCount(total)} rollouts loaded`
      ) : null}
    </div>
  );

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3">
        <p className="text-sm">
          <span className="font-semibold">{formatCount(total)}</span> {total === 1 ? 'rollout' : 'rollouts'}
          {filtered ? ' match' : ''}
          {rollouts.length < total ? <span className="text-muted"> · {formatCount(rollouts.length)} loaded</span> : null}
        </p>
        <LiveIndicator status={live.status} receiving={live.receiving} />
        <div className="ml-auto">
          <ExportCsvButton run={run} view={view} total={total} />
        </div>
      </div>
      {total === 0 && rollouts.length === 0 ? (
        <EmptyState title={filtered ? 'No rollouts match these filters' : 'This run has no rollouts yet'}>
          {filtered ? 'Change or clear the filters above.' : 'New rollouts appear here as they are indexed.'}
        </EmptyState>
      ) : (
        <RolloutsTable run={run} rows={rollouts} sort={shownSort.sort} order={shownSort.order} onSort={onSort} onNearEnd={loadMore} changed={changed} footer={footer} busy={busy} />
      )}
    </div>
  );
}
