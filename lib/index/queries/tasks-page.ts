// What the Tasks page shows, read once per request: the run's task groups are taken from the index once (while a
// pass runs they are built for this request and kept by none), and every section, the open task and the comparison
// with NeMo Gym's aggregate metrics file come from that one set of groups.
import { promises as fsp } from 'node:fs';
import { agreement, type AgreementReport, type AggregateFile } from '../../rollouts/aggregate-metrics';
import { readAggregateMetrics } from '../aggregates/metrics-file';
import type { Run } from '../../api/schemas';
import type { TaskPage } from '../../api/task-schemas';
import type { IndexReader, IndexTaskDetail } from '../reader';
import { taskPage, type TaskPageQuery } from '../aggregates/tasks';

/** Tasks shown per agent when a file mixes agents (each links to all of its tasks). */
const MULTI_AGENT_PAGE = 20;

export type TasksView = Omit<TaskPageQuery, 'limit'>;

export interface TasksPageData {
  run: Run;
  /** Several agents and none chosen: each agent's first tasks, with a link to all of them. */
  multiple: boolean;
  sections: { agent: TaskPage['agents'][number]; next: string | null }[];
  /** The cursor was of another list: its first page is shown. */
  cursorIgnored: boolean;
  openAgent: string;
  detail: IndexTaskDetail | null;
  aggregate: AggregateFile | null;
  reports: AgreementReport[];
  rolloutsMtimeMs: number | null;
}

/** Null for an unknown run. `perPage`: the tasks of one agent's page. */
export async function loadTasksPage(index: IndexReader, runId: string, view: TasksView, open: number | null, perPage: number): Promise<TasksPageData | null> {
  const run = (await index.listRuns()).find((r) => r.id === runId);
  if (!run) return null;
  const agents = (await index.taskGroups(run.id)) ?? [];
  const multiple = agents.length > 1 && view.agent === undefined;
  let cursorIgnored = false;
  const pageOf = (q: TasksView, limit: number) => {
    try {
      return taskPage(agents, { ...q, limit });
    } catch {
      cursorIgnored = true;
      return taskPage(agents, { ...q, cursor: undefined, limit });
    }
  };
  const sections = multiple
    ? agents.map((a) => ({ agent: pageOf({ ...view, agent: a.agent ?? '', cursor: undefined }, MULTI_AGENT_PAGE).agents[0], next: null }))
    : (() => {
        const page = pageOf(view, perPage);
        return page.agents.map((agent) => ({ agent, next: page.next_cursor }));
      })();
  const aggregate = run.aggregate_metrics_file ? await readAggregateMetrics(run.aggregate_metrics_file) : null;
  const reports = aggregate?.ok ? aggregate.agents.map((a) => agreement(a, agents.find((g) => g.agent === a.agent))) : [];
  const rolloutsMtimeMs = run.rollouts_file ? ((await fsp.stat(run.rollouts_file).catch(() => null))?.mtimeMs ?? null) : null;
  const openAgent = view.agent ?? agents[0]?.agent ?? '';
  const detail = open !== null ? await index.task(run.id, openAgent, open, agents) : null;
  return { run, multiple, sections, cursorIgnored, openAgent, detail, aggregate, reports, rolloutsMtimeMs };
}
