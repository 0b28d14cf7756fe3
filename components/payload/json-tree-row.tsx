'use client';

import { memo } from 'react';
import { CopyButton } from '@/components/calls/copy-button';
import { linkTo } from '@/components/calls/copy-text';
import { cx } from '@/components/ui/cn';
import { ChevronDownIcon, ChevronRightIcon } from '@/components/ui/row-icons';
import { formatBytes } from '@/lib/view/format';
import { hashFromPointer } from '@/lib/view/json-pointer';
import type { TreeRow } from '@/lib/view/json-tree';

const SHOWN_EXPANDED = 1_000_000;

export interface RowActions {
  toggle: (pointer: string) => void;
  toggleString: (pointer: string) => void;
  copyValue: (pointer: string) => string;
}

function Value({ row, expanded, actions }: { row: TreeRow; expanded: boolean; actions: RowActions }) {
  if (row.type === 'object' || row.type === 'array') {
    const [open, close] = row.type === 'object' ? ['{', '}'] : ['[', ']'];
    return (
      <span className="text-muted">
        {row.open ? open : `${open}…${close}`} {row.size} {row.type === 'object' ? (row.size === 1 ? 'key' : 'keys') : row.size === 1 ? 'item' : 'items'}
      </span>
    );
  }
  if (row.type !== 'string') return <span className={row.type === 'number' ? 'text-warn' : row.type === 'boolean' ? 'text-accent' : 'text-muted'}>{row.text}</span>;
  const big = row.text.length > SHOWN_EXPANDED;
  return (
    <span className="min-w-0 break-all whitespace-pre-wrap text-good">
      &quot;{big ? row.text.slice(0, SHOWN_EXPANDED) : row.text}
      {row.clip || big ? '…' : '"'}
      {row.clip ? (
        <button type="button" onClick={() => actions.toggleString(row.pointer)} className="ml-2 rounded border border-line px-1 font-sans text-[11px] text-accent hover:bg-panel">
          expand · {row.clip.reason === 'base64' ? `base64${row.clip.mime ? ` ${row.clip.mime}` : ''} · ` : ''}
          {formatBytes(row.clip.bytes)}
        </button>
      ) : expanded ? (
        <button type="button" onClick={() => actions.toggleString(row.pointer)} className="ml-2 rounded border border-line px-1 font-sans text-[11px] text-accent hover:bg-panel">
          collapse{big ? ' (shown in part; copy the value for all of it)' : ''}
        </button>
      ) : null}
    </span>
  );
}

/**
 * One node of the payload tree: toggle, key, value, and copy-link / copy-value actions on hover. Memoized:
 * the tree re-renders on every scroll step and measurement, and only rows whose props changed need work.
 * Without `copyable` the (invisible until hover or focus) copy buttons are not mounted yet, only their room.
 */
export const JsonTreeRow = memo(function JsonTreeRow({ row, expanded, highlighted, copyable, actions }: { row: TreeRow; expanded: boolean; highlighted: boolean; copyable: boolean; actions: RowActions }) {
  const container = row.type === 'object' || row.type === 'array';
  return (
    <div
      className={cx('group flex items-start gap-1 py-px pr-2 font-mono text-xs leading-5 hover:bg-panel', highlighted && 'bg-warn/15 ring-1 ring-warn/60')}
      style={{ paddingLeft: 4 + row.depth * 16 }}
      data-pointer={row.pointer}
    >
      {container && row.size > 0 ? (
        <button type="button" aria-expanded={row.open} aria-label={`${row.open ? 'Collapse' : 'Expand'} ${row.pointer || 'root'}`} onClick={() => actions.toggle(row.pointer)} className="mt-0.5 shrink-0 text-muted hover:text-fg">
          {row.open ? <ChevronDownIcon size={14} /> : <ChevronRightIcon size={14} />}
        </button>
      ) : (
        <span className="w-3.5 shrink-0" />
      )}
      {row.key !== null ? <span className={cx('shrink-0', typeof row.key === 'number' ? 'text-muted' : 'text-fg')}>{row.key}:</span> : null}
      <Value row={row} expanded={expanded} actions={actions} />
      {/* min-w: the two buttons' width (20 px each and the gap), so the value wraps the same before they mount. */}
      <span className="ml-auto flex min-w-[42px] shrink-0 gap-0.5 opacity-0 group-focus-within:opacity-100 group-hover:opacity-100">
        {copyable ? (
          <>
            <CopyButton kind="link" label={`Copy link to ${row.pointer || 'the root'}`} text={() => linkTo(hashFromPointer(row.pointer))} />
            <CopyButton label="Copy value" text={() => actions.copyValue(row.pointer)} />
          </>
        ) : null}
      </span>
    </div>
  );
});
