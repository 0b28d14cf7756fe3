import type { ReactNode } from 'react';
import { Card } from '@/components/ui/card';
import { cx } from '@/components/ui/cn';
import { cellText, changeText, type Cell, type CompareTable } from '@/lib/view/compare';
import { formatCount } from '@/lib/view/format';
import { TableCsvButton } from './table-csv-button';

function CellView({ cell }: { cell: Cell }) {
  const numeric = cell.kind !== 'text';
  const tone = cell.kind.startsWith('delta_') && typeof cell.value === 'number' && cell.value !== 0 ? (cell.value > 0 ? 'text-warn' : 'text-good') : undefined;
  return (
    <td className={cx('px-3 py-1.5 whitespace-nowrap', numeric && 'text-right tabular-nums', cell.value === null && 'text-muted', tone)} title={typeof cell.value === 'number' ? String(cell.value) : undefined}>
      {cellText(cell)}
      {cell.change !== undefined && changeText(cell.change) ? <span className="ml-1.5 text-xs text-muted">{changeText(cell.change)}</span> : null}
    </td>
  );
}

/**
 * A comparison table with its CSV download; `limit` caps the rows drawn (the CSV has them all). A table wider than its
 * card scrolls sideways inside it; headers wrap (a run's name in full, never cut) and carry their text as a title.
 */
export function CompareTableView({ table, runs, limit, actions, note, empty = 'Nothing to compare.' }: { table: CompareTable; runs: string[]; limit?: number; actions?: ReactNode; note?: ReactNode; empty?: string }) {
  const rows = limit ? table.rows.slice(0, limit) : table.rows;
  return (
    <Card
      className="min-w-0"
      title={table.title}
      actions={
        <>
          {actions}
          <TableCsvButton table={table} runs={runs} />
        </>
      }
    >
      {table.rows.length === 0 ? (
        <p className="text-sm text-muted">{empty}</p>
      ) : (
        <>
          {note ? <p className="-mt-1 mb-3 text-sm text-muted">{note}</p> : null}
          <div className={cx('-mx-4 -mb-4 overflow-x-auto', !note && '-mt-4')}>
            <table className="w-full text-sm">
              <thead className="bg-panel text-xs text-muted">
                <tr>
                  {table.headers.map((h, i) => (
                    <th
                      key={`${h}-${i}`}
                      scope="col"
                      title={h}
                      className={cx('max-w-56 min-w-24 px-3 py-2 align-bottom font-medium [overflow-wrap:anywhere]', i > 0 && table.rows[0]?.[i]?.kind !== 'text' ? 'text-right' : 'text-left')}
                    >
                      {h}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row, i) => (
                  <tr key={i} className="border-t border-line">
                    {row.map((cell, j) => (
                      <CellView key={j} cell={cell} />
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
            {rows.length < table.rows.length ? (
              <p className="border-t border-line px-3 py-2 text-xs text-muted">
                Showing {rows.length} of {formatCount(table.rows.length)} rows; the CSV has all of them.
              </p>
            ) : null}
          </div>
        </>
      )}
    </Card>
  );
}
