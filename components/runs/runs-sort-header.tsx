import { ArrowDown, ArrowUp, ArrowUpDown } from 'lucide-react';
import { cx } from '@/components/ui/cn';
import type { RunSortKey, RunsView } from '@/lib/view/runs';

/** A column header of the runs table: a button that sorts by the column, or flips its order. */
export function RunsSortHeader({ column, view, onSort, align }: {
  column: { key: RunSortKey; label: string; title?: string };
  view: Pick<RunsView, 'sort' | 'order'>;
  onSort: (key: RunSortKey) => void;
  align: 'left' | 'right';
}) {
  const active = view.sort === column.key;
  const Icon = !active ? ArrowUpDown : view.order === 'asc' ? ArrowUp : ArrowDown;
  return (
    <th
      scope="col"
      title={column.title}
      aria-sort={active ? (view.order === 'asc' ? 'ascending' : 'descending') : undefined}
      className={cx('px-2 py-2 font-medium whitespace-nowrap', align === 'right' ? 'text-right' : 'text-left')}
    >
      <button type="button" onClick={() => onSort(column.key)} className={cx('inline-flex items-center gap-1 hover:text-fg', align === 'right' && 'flex-row-reverse', active && 'text-fg')}>
        {column.label}
        <Icon size={12} aria-hidden className={active ? 'text-accent' : 'opacity-40'} />
      </button>
    </th>
  );
}
