import { ArrowDown, ArrowUp, ArrowUpDown } from 'lucide-react';
import { cx } from '@/components/ui/cn';
import type { SortKey, SortOrder } from '@/lib/view/table';
import { columnFlex, type ColumnMeta } from './rollout-columns';

/** A column header; sortable ones are buttons that sort by the column or flip its order. */
export function SortHeader({ label, meta, sort, order, onSort }: { label: string; meta: ColumnMeta; sort: SortKey; order: SortOrder; onSort: (key: SortKey) => void }) {
  const active = meta.sortKey !== undefined && meta.sortKey === sort;
  const Icon = !active ? ArrowUpDown : order === 'asc' ? ArrowUp : ArrowDown;
  return (
    <th
      role="columnheader"
      scope="col"
      title={meta.title}
      style={columnFlex(meta.width)}
      aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : undefined}
      className={cx('px-2 py-2 font-medium whitespace-nowrap', meta.align === 'right' ? 'text-right' : 'text-left')}
    >
      {meta.sortKey ? (
        <button
          type="button"
          onClick={() => onSort(meta.sortKey!)}
          className={cx('inline-flex items-center gap-1 hover:text-fg', meta.align === 'right' && 'flex-row-reverse', active && 'text-fg')}
        >
          {label}
          <Icon size={12} aria-hidden className={active ? 'text-accent' : 'opacity-40'} />
        </button>
      ) : (
        label
      )}
    </th>
  );
}
