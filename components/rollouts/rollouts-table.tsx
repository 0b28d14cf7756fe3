'use client';

import { flexRender, getCoreRowModel, useReactTable, type Row } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import { cx } from '@/components/ui/cn';
import { barScale, pageMaxima, shownTokenRows, TOKEN_FIELDS, type RolloutItem, type SortKey, type SortOrder } from '@/lib/view/table';
import { rolloutColumns, type ColumnMeta } from './rollout-columns';
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
  const scale = useMemo(() => barScale(pageMaxima(shownTokenRows(rows), TOKEN_FIELDS)), [rows]);
  const columns = useMemo(() => rolloutColumns(run), [run]);
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
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const width = metas.reduce((a, m) => a + m.width, 0);

  return (
    <div ref={scroller} className={cx('h-[calc(100vh-300px)] min-h-[420px] overflow-auto rounded-lg border border-line transition-opacity', busy && 'opacity-60')}>
      <table className="w-full table-fixed border-collapse text-[13px]" style={{ minWidth: width, ...(scale as CSSProperties) }}>
        <colgroup>
          {metas.map((m, i) => (
            <col key={i} style={{ width: m.width }} />
          ))}
        </colgroup>
        <thead className="sticky top-0 z-10 bg-panel text-xs text-muted shadow-[0_1px_0_var(--line)]">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((h) => (
                <SortHeader key={h.id} label={String(h.column.columnDef.header)} meta={h.column.columnDef.meta as ColumnMeta} sort={sort} order={order} onSort={onSort} />
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {padTop > 0 ? <tr aria-hidden style={{ height: padTop }} /> : null}
          {items.map((item) => {
            const row = tableRows[item.index];
            if (!row) return null;
            const key = row.original.key;
            return <RolloutRow key={row.id} row={row} metas={metas} selected={selected === key} changed={changed.has(key)} onSelect={setSelected} />;
          })}
          {padBottom > 0 ? <tr aria-hidden style={{ height: padBottom }} /> : null}
        </tbody>
      </table>
      {footer}
    </div>
  );
}

interface RowProps {
  row: Row<RolloutItem>;
  metas: ColumnMeta[];
  selected: boolean;
  changed: boolean;
  onSelect: (key: string) => void;
}

/**
 * One row, rendered again only when its rollout, its columns or its marks change: not on every scroll frame,
 * nor when a page is appended (the table's row objects are new then; the rollout and the columns are not).
 */
const RolloutRow = memo(function RolloutRow({ row, metas, selected, changed, onSelect }: RowProps) {
  const r = row.original;
  return (
    <tr
      data-failed={r.failure_class ? '' : undefined}
      onClick={() => onSelect(r.key)}
      data-selected={selected ? '' : undefined}
      style={{ height: ROW_PX }}
      className={cx(
        'border-t border-line hover:bg-panel/70',
        r.failure_class && 'bg-bad/5 shadow-[inset_3px_0_0_var(--bad)]',
        selected && 'bg-accent/10',
        changed && 'animate-pulse bg-good/10',
      )}
    >
      {row.getVisibleCells().map((cell, i) => (
        <td key={cell.id} className={cx('overflow-hidden px-2 whitespace-nowrap', metas[i].align === 'right' && 'text-right tabular-nums')}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  );
}, sameRow);

function sameRow(a: RowProps, b: RowProps): boolean {
  return a.row.original === b.row.original && a.metas === b.metas && a.selected === b.selected && a.changed === b.changed && a.onSelect === b.onSelect;
}
