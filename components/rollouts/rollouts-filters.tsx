'use client';

import { X } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { SearchBox } from '@/components/ui/search-box';
import { DIALECTS, DIALECT_INFO, ERROR_CATEGORIES, ERROR_CATEGORY_INFO, GAP_CODES, GAP_GROUP_TITLES, gapLabel } from '@/lib/capture/vocabulary';
import { TOOL_STATUSES } from '@/lib/rollouts/observation-values';
import { activeFilters, type RolloutView } from '@/lib/view/table';
import { FilterSelect } from './filter-select';
import { NumberFilter } from './number-filter';
import type { ViewPatch } from './use-rollout-view';

const GAP_OPTIONS = Object.entries(GAP_CODES).map(([code, g]) => [code, gapLabel(code), `${g.title}: ${g.meaning}`, GAP_GROUP_TITLES[g.group]] as [string, string, string, string]);
const DIALECT_OPTIONS = DIALECTS.map((d) => [d, d, DIALECT_INFO[d].meaning] as [string, string, string]);
const ERROR_OPTIONS = ERROR_CATEGORIES.map((c) => [c, c, ERROR_CATEGORY_INFO[c].meaning] as [string, string, string]);
const TOOL_STATUS_OPTIONS = TOOL_STATUSES.map((s) => [s, s, `rollouts with a tool call whose status is ${s}`] as [string, string, string]);
const bool = (v: boolean | undefined) => (v === undefined ? null : String(v));
const toBool = (v: string | null) => (v === null ? null : v === 'true');

const CLEARED: ViewPatch = { q: null, model_server: null, dialect: null, error_category: null, gap: null, tool_name: null, tool_status: null, trajectory_gap: null, attempt: null, reward_min: null, reward_max: null, has_errors: null, failed: null, line_problem: null };

/**
 * Search and filters of the rollouts table; each one is a query parameter. `unreadableLines`: the run's rollout lines
 * that could not be read; their filter shows only when there are some (or it is set).
 */
export function RolloutsFilters({
  view, setView, modelServers, unreadableLines, trajectories,
}: { view: RolloutView; setView: (patch: ViewPatch) => void; modelServers: string[]; unreadableLines: number; trajectories: boolean }) {
  const trajectoryFilters = trajectories || view.tool_name !== undefined || view.tool_status !== undefined || view.trajectory_gap !== undefined;
  return (
    <div role="search" aria-label="filter rollouts" className="flex flex-wrap items-end gap-x-3 gap-y-2">
      <SearchBox label="Search" placeholder="id, task, agent…" value={view.q} onChange={(q) => setView({ q })} debounceMs={350} className="w-44" />
      <FilterSelect label="Model server" value={view.model_server} options={modelServers} onChange={(v) => setView({ model_server: v })} />
      <FilterSelect label="Dialect" value={view.dialect} options={DIALECT_OPTIONS} onChange={(v) => setView({ dialect: v as RolloutView['dialect'] | null })} />
      <FilterSelect label="Error category" value={view.error_category} options={ERROR_OPTIONS} onChange={(v) => setView({ error_category: v as RolloutView['error_category'] | null })} />
      <FilterSelect label="Gap" value={view.gap} options={GAP_OPTIONS} onChange={(v) => setView({ gap: v as RolloutView['gap'] | null })} />
      {trajectoryFilters ? (
        <>
          <SearchBox label="Tool" placeholder="tool name" value={view.tool_name} onChange={(v) => setView({ tool_name: v })} debounceMs={350} className="w-28" />
          <FilterSelect label="Tool status" value={view.tool_status} options={TOOL_STATUS_OPTIONS} onChange={(v) => setView({ tool_status: v as RolloutView['tool_status'] | null })} />
          <FilterSelect label="Trajectory gap" value={view.trajectory_gap} options={GAP_OPTIONS} onChange={(v) => setView({ trajectory_gap: v as RolloutView['trajectory_gap'] | null })} />
        </>
      ) : null}
      <FilterSelect label="Errors" value={bool(view.has_errors)} options={[['true', 'with errors'], ['false', 'without errors']]} onChange={(v) => setView({ has_errors: toBool(v) })} />
      <FilterSelect label="Failed" value={bool(view.failed)} options={[['true', 'failed only'], ['false', 'not failed']]} onChange={(v) => setView({ failed: toBool(v) })} />
      {unreadableLines > 0 || view.line_problem !== undefined ? (
        <FilterSelect label="Line" value={bool(view.line_problem)} options={[['true', 'unreadable only'], ['false', 'readable']]} onChange={(v) => setView({ line_problem: toBool(v) })} />
      ) : null}
      <NumberFilter label="Reward ≥" value={view.reward_min} onChange={(v) => setView({ reward_min: v })} />
      <NumberFilter label="Reward ≤" value={view.reward_max} onChange={(v) => setView({ reward_max: v })} />
      <NumberFilter label="Attempt" value={view.attempt} integer step="1" onChange={(v) => setView({ attempt: v })} />
      {activeFilters(view) > 0 ? (
        <Button variant="ghost" onClick={() => setView(CLEARED)}>
          <X size={14} aria-hidden /> Clear filters
        </Button>
      ) : null}
    </div>
  );
}
