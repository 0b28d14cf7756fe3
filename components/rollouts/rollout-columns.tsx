import type { ColumnDef } from '@tanstack/react-table';
import type { CSSProperties, ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { LocalTime } from '@/components/ui/local-time';
import { formatCount, formatMs, formatReward } from '@/lib/view/format';
import type { RolloutItem } from '@/lib/api/schemas';
import { shownTokens, type SortKey, type TokenField } from '@/lib/view/table';
import { ROLLOUT_SOURCE_INFO } from '@/lib/capture/vocabulary';
import { GapBadges } from './gap-badges';
import { OutcomeBadges } from './outcome-badges';
import { RolloutIdCell } from './rollout-id-cell';
import { TokenCell } from './token-cell';

export interface ColumnMeta {
  sortKey?: SortKey;
  width: number;
  align: 'left' | 'right';
  title?: string;
}
type Column = ColumnDef<RolloutItem> & { meta: ColumnMeta };

/** A column's share of a row: its width, and of any width left over in proportion to it (as table-layout: fixed). */
export function columnFlex(width: number): CSSProperties {
  return { flex: `${width} 0 ${width}px`, minWidth: 0 };
}

const muted = (text: string, known: boolean) => <span className={known ? undefined : 'text-muted'}>{text}</span>;

/** A line's text field, cut to its cell (whole on hover), a dash when the line has none. */
const clipped = (text: string | null) =>
  text === null ? (
    <span className="text-muted">—</span>
  ) : (
    <span className="block truncate" title={text}>
      {text}
    </span>
  );

/** A count of calls or errors, "unknown" for a rollout without capture evidence (not 0). */
function callCount(r: RolloutItem, n: number, className?: string) {
  if (r.source === 'none') return <span className="text-muted" title={ROLLOUT_SOURCE_INFO.none.meaning}>unknown</span>;
  return <span className={className}>{formatCount(n)}</span>;
}

function tokens(field: TokenField, header: string, label: string): Column {
  return {
    id: field,
    header,
    meta: { sortKey: field === 'cached_tokens' ? 'tokens_cached' : field, width: 76, align: 'right', title: `${label} per rollout (bars relative to the largest of the rows loaded)` },
    cell: ({ row: { original: r } }) => {
      const shown = shownTokens(r, r.num_calls, field);
      const cached = shownTokens(r, r.num_calls, 'cached_tokens').value;
      return (
        <TokenCell
          value={shown.value}
          field={field}
          label={label}
          fromUsage={shown.fromUsage}
          note={field === 'tokens_in' && cached !== null ? `${formatCount(cached)} cached` : undefined}
        />
      );
    },
  };
}

/** A trajectory count, a dash for a rollout without a trajectory (not 0: there is nothing to count). */
function trajectoryCell(r: RolloutItem, value: (t: NonNullable<RolloutItem['trajectory']>) => ReactNode) {
  if (!r.trajectory) return <span className="text-muted" title="no trajectory: the line has no ng_trajectory or observations, and no captured calls">—</span>;
  return value(r.trajectory);
}

/** The columns of a run whose rollouts have trajectories: tool calls, measured tool time, invocations, turns. */
const TRAJECTORY_COLUMNS: Column[] = [
  {
    id: 'tool_calls',
    header: 'Tools',
    meta: { sortKey: 'tool_calls', width: 64, align: 'right', title: "Tool calls of the rollout's trajectory (failed ones in red)" },
    cell: ({ row: { original: r } }) =>
      trajectoryCell(r, (t) => (
        <span title={`${t.tool_failed} failed · ${t.tool_unmeasured} not measured${t.tool_names.length ? ` · ${t.tool_names.join(', ')}` : ''}`}>
          {formatCount(t.tool_calls)}
          {t.tool_failed > 0 ? <span className="ml-1 text-bad">{formatCount(t.tool_failed)}✕</span> : null}
        </span>
      )),
  },
  {
    id: 'tool_time',
    header: 'Tool time',
    meta: { sortKey: 'tool_time', width: 76, align: 'right', title: 'Measured tool time: the sum of the measured tool intervals (unmeasured ones are not counted)' },
    cell: ({ row: { original: r } }) =>
      trajectoryCell(r, (t) => (t.tool_time_ms === null ? <span className="text-muted" title="no tool call has a measured interval">not measured</span> : formatMs(t.tool_time_ms))),
  },
  {
    id: 'invocations',
    header: 'Agents',
    meta: { sortKey: 'invocations', width: 60, align: 'right', title: 'Agent invocations: the main agent and its subagents (nesting depth on hover)' },
    cell: ({ row: { original: r } }) => trajectoryCell(r, (t) => <span title={`subagents nest ${t.subagent_depth} deep`}>{formatCount(t.invocations)}</span>),
  },
  {
    id: 'turns',
    header: 'Turns',
    meta: { sortKey: 'turns', width: 56, align: 'right', title: "Semantic turns of the trajectory (agents that report none show 0)" },
    cell: ({ row: { original: r } }) => trajectoryCell(r, (t) => formatCount(t.turns)),
  },
];

/**
 * The rollouts table's columns; the token bars are scaled by the table (barScale). `trajectories`: the rollouts
 * have trajectories, so their columns are shown after the calls'.
 */
export function rolloutColumns(run: string, trajectories = false): Column[] {
  const columns = baseColumns(run);
  if (trajectories) columns.splice(columns.findIndex((c) => c.id === 'errors'), 0, ...TRAJECTORY_COLUMNS);
  return columns;
}

function baseColumns(run: string): Column[] {
  return [
    { id: 'rollout', header: 'Rollout', meta: { sortKey: 'rollout', width: 150, align: 'left' }, cell: ({ row }) => <RolloutIdCell run={run} r={row.original} /> },
    {
      id: 'started_at',
      header: 'Started',
      meta: { sortKey: 'started_at', width: 176, align: 'left', title: 'First call started (your time zone; UTC on hover)' },
      cell: ({ row }) => <LocalTime seconds={row.original.started_at} pattern="MM-dd HH:mm:ss" />,
    },
    { id: 'reward', header: 'Reward', meta: { sortKey: 'reward', width: 60, align: 'right' }, cell: ({ row }) => muted(formatReward(row.original.reward), row.original.reward !== null) },
    { id: 'prompt', header: 'Prompt', meta: { width: 220, align: 'left', title: "The task's prompt: the first user message of the line's responses_create_params.input (searchable)" }, cell: ({ row }) => clipped(row.original.prompt) },
    { id: 'expected', header: 'Expected', meta: { width: 90, align: 'left', title: "The line's expected_answer (or ground_truth)" }, cell: ({ row }) => clipped(row.original.expected_answer) },
    { id: 'extracted', header: 'Extracted', meta: { width: 90, align: 'left', title: "The line's extracted_answer (or a judge's extracted_final_answer): what the resource server read from the agent's answer" }, cell: ({ row }) => clipped(row.original.extracted_answer) },
    { id: 'outcome', header: 'Outcome', meta: { width: 130, align: 'left', title: 'How the rollout ended, from its line: resolved, timed out, error kinds...' }, cell: ({ row }) => <OutcomeBadges outcome={row.original.outcome} failure={row.original.failure_class} /> },
    { id: 'calls', header: 'Calls', meta: { sortKey: 'calls', width: 60, align: 'right' }, cell: ({ row }) => callCount(row.original, row.original.num_calls) },
    tokens('tokens_in', 'In', 'tokens in'),
    tokens('tokens_out', 'Out', 'tokens out'),
    tokens('tokens_reasoning', 'Reasoning', 'reasoning tokens'),
    tokens('tokens_total', 'Total', 'tokens total'),
    { id: 'latency_sum', header: 'Latency sum', meta: { sortKey: 'latency_sum', width: 84, align: 'right', title: 'Sum of call latencies' }, cell: ({ row }) => muted(formatMs(row.original.latency_sum), row.original.latency_sum !== null) },
    { id: 'latency_max', header: 'Max', meta: { sortKey: 'latency_max', width: 68, align: 'right', title: 'Slowest call' }, cell: ({ row }) => muted(formatMs(row.original.latency_max), row.original.latency_max !== null) },
    { id: 'ttft_p50', header: 'TTFT p50', meta: { sortKey: 'ttft_p50', width: 68, align: 'right', title: 'Median time to first token of streamed calls' }, cell: ({ row }) => muted(formatMs(row.original.ttft_p50), row.original.ttft_p50 !== null) },
    {
      id: 'errors',
      header: 'Errors',
      meta: { sortKey: 'errors', width: 62, align: 'right', title: 'Calls with an error category' },
      cell: ({ row: { original: r } }) =>
        r.source === 'none' ? (
          callCount(r, r.errors)
        ) : (
          <span className={r.errors > 0 ? 'font-medium text-bad' : 'text-muted'} title={r.error_categories.join(', ') || undefined}>
            {formatCount(r.errors)}
          </span>
        ),
    },
    { id: 'gaps', header: 'Gaps', meta: { sortKey: 'gaps', width: 100, align: 'left', title: 'Missing evidence (spec §5.3); hover a code for its meaning' }, cell: ({ row }) => <GapBadges gaps={row.original.gaps} /> },
    { id: 'attempt', header: 'Attempt', meta: { width: 56, align: 'right' }, cell: ({ row }) => muted(row.original.attempt === null ? '—' : String(row.original.attempt), row.original.attempt !== null) },
    {
      id: 'model_servers',
      header: 'Model servers',
      meta: { width: 110, align: 'left' },
      cell: ({ row }) => (
        <div className="flex gap-1 overflow-hidden" title={row.original.model_servers.join(', ')}>
          {row.original.model_servers.map((s) => (
            <Badge key={s}>{s}</Badge>
          ))}
        </div>
      ),
    },
  ];
}
