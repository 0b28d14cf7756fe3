'use client';

import { flexRender, getCoreRowModel, useReactTable, type Row } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { cx } from '@/components/ui/cn';
import type { RolloutItem } from '@/lib/api/schemas';
import { barScale, barScaleCss, pageMaxima, shownTokenRows, TOKEN_FIELDS, type SortKey, type SortOrder } from '@/lib/view/table';
import { columnFlex, rolloutColumns, type ColumnMeta } from './rollout-columns';
import { SortHeader } from './sort-header';

const ROW_PX = 38;
const LOAD_AHEAD_ROWS = 30;

interface Props {
  run: string;
  rows: RolloutItem[];
  sort: SortKey;
  order: SortOrder;
  onSort: (key: SortKey) => void;
  onNearEnd: () => void;
  changed: ReadonlySet<string>;
  footer?: ReactNode;
  busy?: boolean;
}

/** The rollouts of a view in a virtualized table: only the rows in sight are in the DOM. */
export function RolloutsTable({ run, rows, sort, order, onSort, onNearEnd, changed, footer, busy }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const scope = `bars-${useId().replace(/[^\w-]/g, '')}`;
  const scaleCss = useMemo(() => barScaleCss(scope, barScale(pageMaxima(shownTokenRows(rows), TOKEN_FIELDS))), [scope, rows]);
  const trajectories = rows.some((r) => r.trajectory !== null);
  const columns = useMemo(() => rolloutColumns(run, trajectories), [run, trajectories]);
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel(), getRowId: (r) => r.key, manualSorting: true });
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    overscan: 12,
    getItemKey: (i) => rows[i]?.key ?? i,
    initialRect: { width: 1300, height: 720 },
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (lastIndex >= rows.length - LOAD_AHEAD_ROWS) onNearEnd();
  }, [lastIndex, rows.length, onNearEnd]);

  const tableRows = table.getRowModel().rows;
  const metas = useMemo(() => columns.map((c) => c.meta), [columns]);
  const width = metas.reduce((a, m) => a + m.width, 0);

  // Table elements laid out as a grid of flex rows, each placed absolutely: a row scrolled in or out is the only
  // thing laid out and painted again (in table layout, every row added or removed re-laid and repainted the whole
  // table on each scroll frame, so the 1M-call table scrolled at a low frame rate). The explicit roles keep the
  // table semantics that CSS display would drop. The body is size-contained (its height is the virtualizer's), and a
  // cell has no clip and no wrapper element: a clip per cell is a paint chunk per cell, and in a trace of a scroll
  // (CPU throttled) merging those chunks into layers took much less time without them; the cells whose content can
  // overflow (rollout id, gaps, model servers) clip it themselves.
  return (
    <div ref={scroller} className={cx('h-[calc(100vh-300px)] min-h-[420px] overflow-auto rounded-lg border border-line transition-opacity', busy && 'opacity-60')}>
      <style>{scaleCss}</style>
      <table role="table" aria-rowcount={rows.length + 1} className={cx('grid w-full text-[13px]', scope)} style={{ minWidth: width }}>
        <thead role="rowgroup" className="sticky top-0 z-10 grid bg-panel text-xs text-muted shadow-[0_1px_0_var(--line)]">
          {table.getHeaderGroups().map((group) => (
            <tr role="row" aria-rowindex={1} key={group.id} className="flex w-full">
              {group.headers.map((h) => (
                <SortHeader key={h.id} label={String(h.column.columnDef.header)} meta={h.column.columnDef.meta as ColumnMeta} sort={sort} order={order} onSort={onSort} />
              ))}
            </tr>
          ))}
        </thead>
        <tbody role="rowgroup" className="relative block [contain:strict]" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = tableRows[item.index];
            if (!row) return null;
            const key = row.original.key;
            return (
              <RolloutRow key={row.id} row={row} index={item.index} start={item.start} metas={metas} selected={selected === key} changed={changed.has(key)} onSelect={setSelected} />
            );
          })}
        </tbody>
      </table>
      {footer}
    </div>
  );
}

interface RowProps {
  row: Row<RolloutItem>;
  index: number;
  start: number;
  metas: ColumnMeta[];
  selected: boolean;
  changed: boolean;
  onSelect: (key: string) => void;
}

/**
 * One row, rendered again only when its rollout, its columns or its marks change: not on every scroll frame,
 * nor when a page is appended (the table's row objects are new then; the rollout and the columns are not).
 */
const RolloutRow = memo(function RolloutRow({ row, index, start, metas, selected, changed, onSelect }: RowProps) {
  const r = row.original;
  return (
    <tr
      role="row"
      aria-rowindex={index + 2}
      data-failed={r.failure_class ? '' : undefined}
      onClick={() => onSelect(r.key)}
      data-selected={selected ? '' : undefined}
      style={{ height: ROW_PX, top: start }}
      className={cx(
        'absolute inset-x-0 flex border-t border-line hover:bg-panel/70',
        r.failure_class && 'bg-bad/5 shadow-[inset_3px_0_0_var(--bad)]',
        selected && 'bg-accent/10',
        changed && 'animate-pulse bg-good/10',
      )}
    >
      {row.getVisibleCells().map((cell, i) => (
        <td
          role="cell"
          key={cell.id}
          style={columnFlex(metas[i].width)}
          className={cx('flex flex-col justify-center px-2 whitespace-nowrap', metas[i].align === 'right' && 'text-right tabular-nums')}
        >
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  );
}, sameRow);

function sameRow(a: RowProps, b: RowProps): boolean {
  return (
    a.row.original === b.row.original && a.index === b.index && a.start === b.start && a.metas === b.metas && a.selected === b.selected &&
    a.changed === b.changed && a.onSelect === b.onSelect
  );
}
